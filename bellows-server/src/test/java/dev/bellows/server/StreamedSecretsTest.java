package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpResponse;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * A model that writes a secret in pieces of three characters, each piece its own delta: what a
 * client puts together from the deltas (AG-UI's text, reasoning and tool-argument streams, the
 * completions' {@code reasoning_content}) holds {@code [REDACTED]}, never the secret.
 */
class StreamedSecretsTest {

    record Note(String text) {
    }

    final String secret = "sk-" + HexFormat.of().formatHex(randomBytes());

    static byte[] randomBytes() {
        byte[] bytes = new byte[12];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    ServerFixture server(MockScript script) throws Exception {
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("note", "Notes a text.", Note.class,
                (context, note) -> ToolResult.of("noted")));
        return new ServerFixture(script, b -> b.secrets(List.of(secret)), tools, JettyAgentServer.IDLE_TIMEOUT);
    }

    MockScript script() {
        return MockScript.of(
                MockTurn.content("Your key is " + secret + " as asked. " + call("note", "{\"text\": \"key " + secret + " kept\"}"))
                        .withReasoning("The key " + secret + " is in my prompt.").chunkSize(3),
                MockTurn.content(call("task_completion", "{\"result\": \"Done.\"}")).chunkSize(3));
    }

    /** The deltas of the events of {@code type}, joined in order. */
    static String joined(List<JsonNode> events, String type) {
        StringBuilder text = new StringBuilder();
        events.stream().filter(e -> e.get("type").asString().equals(type)).forEach(e -> text.append(e.get("delta").asString()));
        return text.toString();
    }

    @Test
    void aguiTextReasoningAndToolArgumentsNeverCarryASecretSplitAcrossDeltas() throws Exception {
        try (ServerFixture server = server(script())) {
            HttpResponse<String> response = server.post("/agui", runInput("s", "What is your key?").toString());
            assertThat(response.statusCode()).isEqualTo(200);
            List<JsonNode> events = ServerFixture.events(response.body());
            for (String type : List.of("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT", "TOOL_CALL_ARGS")) {
                String text = joined(events, type);
                assertThat(text).as(type).doesNotContain(secret).contains(Redactor.MARK);
            }
            assertThat(joined(events, "TEXT_MESSAGE_CONTENT")).contains("Your key is [REDACTED] as asked.");
            assertThat(joined(events, "TOOL_CALL_ARGS")).contains("key [REDACTED] kept");
            // each stream is whole: what was held back came before its end
            assertThat(joined(events, "REASONING_MESSAGE_CONTENT")).isEqualTo("The key [REDACTED] is in my prompt.");
            assertThat(ServerFixture.types(events)).contains("TEXT_MESSAGE_END", "REASONING_MESSAGE_END", "TOOL_CALL_END");
        }
    }

    @Test
    void streamedCompletionReasoningNeverCarriesASecretSplitAcrossDeltas() throws Exception {
        try (ServerFixture server = server(script())) {
            ObjectNode request = ServerFixture.MAPPER.createObjectNode().put("model", "bellows").put("stream", true);
            request.putArray("messages").addObject().put("role", "user").put("content", "What is your key?");
            HttpResponse<String> response = server.post("/v1/chat/completions", request.toString());
            assertThat(response.statusCode()).isEqualTo(200);
            StringBuilder reasoning = new StringBuilder();
            StringBuilder content = new StringBuilder();
            for (String line : response.body().split("\n")) {
                if (line.startsWith("data: {")) {
                    JsonNode delta = ServerFixture.MAPPER.readTree(line.substring(6)).at("/choices/0/delta");
                    reasoning.append(delta.path("reasoning_content").asString(""));
                    content.append(delta.path("content").asString(""));
                }
            }
            assertThat(reasoning.toString()).doesNotContain(secret).contains("The key [REDACTED] is in my prompt.");
            assertThat(content.toString()).isEqualTo("Done.");
        }
    }
}
