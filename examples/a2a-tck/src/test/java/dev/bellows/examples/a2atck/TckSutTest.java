package dev.bellows.examples.a2atck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.a2a.server.A2aServer;
import dev.bellows.server.jetty.JettyAgentServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The system under test answers the kit's prefixes: a completed task, a direct message, a chunked stream. */
class TckSutTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String send(String messageId, String method) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{\"message\":{\"messageId\":\""
                + messageId + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}}";
    }

    @Test
    void theKitsPrefixesChooseTheBehaviour() throws Exception {
        A2aServer a2a = TckSut.a2a();
        try (JettyAgentServer http = TckSut.start(a2a, 0)) {
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest.Builder post = HttpRequest.newBuilder(http.uri().resolve(A2aServer.JSONRPC_PATH))
                    .header("Content-Type", "application/json").header("A2A-Version", "1.0");
            JsonNode task = JSON.readTree(client.send(post.POST(HttpRequest.BodyPublishers.ofString(
                    send("tck-complete-task-1", "SendMessage"))).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .at("/result/task");
            assertEquals("TASK_STATE_COMPLETED", task.at("/status/state").asString());
            assertEquals("Hello from TCK", task.at("/status/message/parts/0/text").asString());

            JsonNode message = JSON.readTree(client.send(post.POST(HttpRequest.BodyPublishers.ofString(
                    send("tck-message-response-1", "SendMessage"))).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .at("/result/message");
            assertEquals("Direct message response", message.at("/parts/0/text").asString());

            String stream = client.send(post.POST(HttpRequest.BodyPublishers.ofString(
                    send("tck-stream-artifact-chunked-1", "SendStreamingMessage"))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(stream.contains("\"chunk-1 \"") && stream.contains("\"chunk-2\"") && stream.contains("\"lastChunk\":true"),
                    stream);
            String[] frames = stream.strip().split("\n\n");
            assertTrue(frames[frames.length - 1].contains("\"TASK_STATE_COMPLETED\""), stream);
            client.shutdownNow();
        } finally {
            a2a.shutdown(Duration.ZERO);
        }
    }
}
