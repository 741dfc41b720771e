package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.bellows.secret.Secrets;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of configured secret, planted where a server or a model echoes it back, appears
 * nowhere it could leave the process: standard output and error, the requests sent to the
 * model, the session database, log records.
 */
class SecretsTest {

    static final String PROVIDER_KEY = "sk-planted-provider-key-1234";
    static final String ENV_SECRET = "env-secret-value-5678";
    static final String BEARER = "header-bearer-token-9012";
    static final String API_KEY_HEADER = "header-api-key-3456";
    static final String PG_PASSWORD = "pg-password-7890";
    static final List<String> ALL = List.of(PROVIDER_KEY, ENV_SECRET, BEARER, API_KEY_HEADER, PG_PASSWORD);

    @TempDir
    Path dir;

    private Cli.Run bellows(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(Map.of("PATH", System.getenv("PATH")), dir, Interrupts.NONE, false)).execute(args);
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** An HTTP MCP endpoint whose error body echoes the headers it was sent, as careless servers do. */
    private static HttpServer echoingServer() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/mcp", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("{\"error\": \"unauthorized: Authorization=" + exchange.getRequestHeaders().getFirst("Authorization")
                    + " X-Api-Key=" + exchange.getRequestHeaders().getFirst("X-Api-Key") + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    /** The contents of the events of one type, joined: what a reader of the deltas reassembles. */
    private static String joined(Cli.Run run, String type) {
        StringBuilder text = new StringBuilder();
        for (tools.jackson.databind.JsonNode event : run.outJson()) {
            if (event.get("type").asString().equals(type)) {
                text.append(event.get("content").asString());
            }
        }
        return text.toString();
    }

    @Test
    void a_key_the_model_writes_in_three_character_pieces_is_redacted_across_the_jsonl_deltas() throws Exception {
        String key = "sk-split-across-deltas-4321";
        String answer = "<thinking>the key is " + key + " I think</thinking>\nIt is " + key + ", as you said.\n"
                + call("task_completion", "{\"result\": \"told you " + key + "\"}");
        try (MockLlmServer model = RunCommandTest.server(dev.bellows.testkit.MockTurn.content(answer).chunkSize(3))) {
            Cli.Run run = bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock", "--api-key", key,
                    "--output", "jsonl", "say it");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).doesNotContain(key);
            String message = joined(run, "message_content");
            String thinking = joined(run, "thinking_content");
            assertThat(message).contains("It is [REDACTED], as you said.").doesNotContain(key);
            assertThat(thinking).contains("the key is [REDACTED] I think").doesNotContain(key);
            assertThat(joined(run, "tool_call_content")).doesNotContain(key);
            // the deltas really were pieces: many of them, none holding back more than the key
            assertThat(run.outJson().stream().filter(e -> e.get("type").asString().equals("message_content")).count())
                    .isGreaterThan(5);
            assertThat(run.outJson()).filteredOn(event -> event.get("type").asString().endsWith("_content"))
                    .allSatisfy(event -> assertThat(event.path("content").asString().length())
                            .isLessThanOrEqualTo(key.length() + 3 + Secrets.REDACTED.length()));
        }
    }

    @Test
    void secrets_echoed_by_servers_and_models_leave_the_process_nowhere() throws Exception {
        HttpServer remote = echoingServer();
        // The model echoes secrets only in its last answer: it can know none (what it reads is
        // redacted), and its own words would go back to it in the next request.
        String tools = mcp("hostile", "leak") + mcp("hostile", "fail") + mcp("remote", "anything");
        String answer = "<thinking>the env says " + ENV_SECRET + "</thinking>\n" + call("task_completion", "{\"result\": \"the key is " + PROVIDER_KEY + " and " + BEARER + "\"}");
        try (MockLlmServer model = RunCommandTest.server(tools, answer, tools, answer)) {
            Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {"
                    + "\"hostile\": {\"command\": \"node\", \"args\": ["
                    + Cli.MAPPER.valueToTree(TerminalControlsTest.script("hostile-server.js").toString()) + "],"
                    + " \"env\": {\"SECRET_TOKEN\": \"" + ENV_SECRET + "\"}},"
                    + "\"remote\": {\"url\": \"http://127.0.0.1:" + remote.getAddress().getPort() + "/mcp\","
                    + " \"headers\": {\"Authorization\": \"Bearer " + BEARER + "\", \"X-Api-Key\": \"" + API_KEY_HEADER + "\"}}"
                    + "}}");
            List<Cli.Run> runs = new ArrayList<>();
            for (String output : List.of("text", "jsonl")) {
                runs.add(bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock", "--api-key",
                        PROVIDER_KEY, "--mcp-config", "mcp.json", "--session", "s-" + output, "--data-dir",
                        dir.resolve("data").toString(), "--output", output, "use the tools"));
            }
            runs.add(bellows("tools", "--mcp-config", "mcp.json"));
            runs.add(bellows("tools", "--mcp-config", "mcp.json", "--call", "hostile/fail"));
            runs.add(bellows("tools", "--mcp-config", "mcp.json", "--call", "hostile/leak"));
            runs.add(bellows("sessions", "show", "s-text", "--data-dir", dir.resolve("data").toString()));
            runs.add(bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store",
                    "postgresql://bellows:" + PG_PASSWORD + "@127.0.0.1:1/bellows", "--session", "p", "hi"));

            StringBuilder everything = new StringBuilder();
            for (Cli.Run run : runs) {
                everything.append(run.out()).append('\n').append(run.err()).append('\n');
            }
            for (RecordedRequest request : model.requests()) {
                everything.append(request.body()).append('\n');
            }
            try (Stream<Path> files = Files.walk(dir.resolve("data"))) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    everything.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).append('\n');
                }
            }
            String all = everything.toString();
            assertThat(all).as("the runs did reach the echoes")
                    .contains("token=[REDACTED]", "denied for token [REDACTED]", "Authorization=[REDACTED]",
                            "X-Api-Key=[REDACTED]", "the key is [REDACTED] and [REDACTED]");
            for (String secret : ALL) {
                assertThat(all).as("secret %s", secret).doesNotContain(secret);
            }
        } finally {
            remote.stop(0);
        }
    }

    private static String mcp(String server, String tool) {
        return "<tool>{\"server_name\": \"" + server + "\", \"tool_name\": \"" + tool + "\", \"arguments\": {}}</tool>";
    }

    @Test
    void log_records_lose_their_secrets_before_any_handler_sees_them() {
        Secrets.register("log-planted-secret-4321");
        LogRecord record = new LogRecord(Level.WARNING, "failed with log-planted-secret-4321 and {0}");
        record.setParameters(new Object[] {"log-planted-secret-4321"});
        record.setThrown(new IllegalStateException("boom log-planted-secret-4321"));
        assertThat(CliLogging.redact(record)).isTrue();
        String formatted = new java.util.logging.SimpleFormatter().format(record);
        assertThat(formatted).doesNotContain("log-planted-secret-4321").contains("[REDACTED]");
        assertThat(record.getThrown().getStackTrace()).isNotEmpty();
    }
}
