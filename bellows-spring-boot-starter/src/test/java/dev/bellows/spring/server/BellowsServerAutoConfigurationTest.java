package dev.bellows.spring.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code bellows.server.enabled=true}: the agent bean served by the application's own server. */
@SpringBootTest(classes = BellowsServerAutoConfigurationTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"bellows.server.enabled=true", "bellows.server.auth-token=tok-spring-1", "bellows.model=mock",
                "bellows.server.allowed-hosts=agents.internal"})
class BellowsServerAutoConfigurationTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Provider provider() {
            return new ScriptedProvider(MockScript.of(MockTurn.content("<thinking>easy</thinking><tool>{\"tool_name\":"
                    + " \"task_completion\", \"arguments\": {\"result\": \"42\"}}</tool>").chunkSize(5)));
        }
    }

    @TempDir
    static Path sessions;

    @DynamicPropertySource
    static void store(DynamicPropertyRegistry properties) {
        properties.add("bellows.sessions-directory", () -> sessions.toString());
    }

    @LocalServerPort
    int port;

    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    @Test
    void theAgentIsServedAtTheConfiguredPathWithItsThreadsInTheSessionStore() throws Exception {
        assertThat(send(HttpRequest.newBuilder(uri("/bellows/health"))).body()).isEqualTo("{\"status\":\"ok\"}");
        HttpResponse<String> page = send(HttpRequest.newBuilder(uri("/bellows/")));
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Bellows</title>");
        assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();

        String input = "{\"threadId\": \"spring-1\", \"runId\": \"r1\", \"messages\": [{\"id\": \"u1\", \"role\": \"user\","
                + " \"content\": \"40 + 2?\"}]}";
        assertThat(send(HttpRequest.newBuilder(uri("/bellows/agui")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(input)))
                .statusCode()).isEqualTo(401);
        HttpResponse<String> run = send(HttpRequest.newBuilder(uri("/bellows/agui"))
                .header("Authorization", "Bearer tok-spring-1").header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(input)));
        assertThat(run.statusCode()).isEqualTo(200);
        assertThat(run.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        assertThat(run.body()).startsWith("data: {\"type\":\"RUN_STARTED\"").contains("REASONING_MESSAGE_CONTENT")
                .contains("\"toolCallName\":\"task_completion\"").contains("\"type\":\"RUN_FINISHED\"")
                .contains("\"result\":\"42\"");
        assertThat(sessions.resolve("sessions.db")).exists();
    }

    /** The status of a GET sent on a raw socket with the Host given (Java's client will not send a Host of ours). */
    private int statusWithHost(String path, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000);        // a hang guard, not a measure
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return Integer.parseInt(response.split(" ", 3)[1]);
        }
    }

    @Test
    void theAgentAnswersLoopbackAndTheAllowedHostsOnly() throws Exception {
        assertThat(statusWithHost("/bellows/health", "agents.internal:" + port)).isEqualTo(200);
        assertThat(statusWithHost("/bellows/health", "localhost:" + port)).isEqualTo(200);
        assertThat(statusWithHost("/bellows/health", "attacker.example:" + port)).isEqualTo(403);
    }
}
