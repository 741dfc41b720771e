package dev.bellows.mcp;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Streamable HTTP transport reads every message in bounded memory, against a server on
 * 127.0.0.1 that misbehaves on purpose: a JSON response or an event longer than the server's
 * limit (64 KiB here), an event that never ends, a body cut in half. Each fails its call at
 * once with an error that names the server and the limit (or says what broke), the response
 * is closed (the server sees its writes fail), and the session goes on: the next call works on
 * the same session. A huge single text is not an error: it arrives cut, and the model reads
 * how much of what the server sent was left out.
 */
class StreamableHttpBoundsTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final int LIMIT = 64 << 10;
    /** Where a server writing without end gives up if the client never closes: far beyond every bound. */
    private static final long ENDLESS_CAP = 256L << 20;

    private HttpServer server;
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final AtomicInteger sessions = new AtomicInteger();
    /** Whether the stream of notifications (GET) sends an event without end. */
    private volatile boolean endlessNotifications;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/mcp", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private McpServers connect() {
        return McpServers.start(List.of(McpServerConfig.http("bounded",
                        "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp")
                .header("Authorization", "Bearer token-1").callTimeout(Duration.ofSeconds(60))
                .maxMessageBytes(LIMIT).build()), McpListener.NONE);
    }

    /** Calls {@code tool}, then "ok" on the same session: the failure (or cut) of one call leaves the session working. */
    private ToolCallOutcome callThenOk(String tool) {
        try (McpServers servers = connect(); ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            ToolChain chain = new ToolChain(registry).withResultLimit(new ResultLimit(1000, new EstimatingTokenCounter()));
            ToolChainResult result = chain.execute(List.of(ReferenceServersTest.call("bounded", tool, Map.of())));
            ToolChainResult ok = chain.execute(List.of(ReferenceServersTest.call("bounded", "ok", Map.of())));
            assertThat(ReferenceServersTest.succeeded(ok).text()).isEqualTo("still here");
            assertThat(sessions).as("initialize requests: the session was kept").hasValue(1);
            return result.outcomes().getFirst();
        }
    }

    private static String failure(ToolCallOutcome outcome) {
        assertThat(outcome).as(outcome.text()).isInstanceOf(ToolCallOutcome.Failed.class);
        return outcome.text();
    }

    @Test
    void a_json_response_over_the_limit_fails_the_call_naming_the_server_and_the_limit() {
        assertThat(failure(callThenOk("many-json")))
                .contains("MCP server \"bounded\" sent a response of more than 64 KiB even with its texts cut to 4096 "
                        + "characters (the server's limit, maxMessageMiB); the response was closed");
    }

    @Test
    void an_event_over_the_limit_fails_the_call_and_its_stream_is_closed() {
        assertThat(failure(callThenOk("many-sse")))
                .contains("MCP server \"bounded\" sent an event of more than 64 KiB even with its texts cut to 4096 "
                        + "characters (the server's limit, maxMessageMiB); the response stream was closed")
                .doesNotContain("the server answered with error");
    }

    @Test
    void an_event_of_many_lines_over_the_limit_fails_the_call() {
        assertThat(failure(callThenOk("many-lines-sse")))
                .contains("MCP server \"bounded\" sent an event of more than 64 KiB in its lines together");
    }

    @Test
    void an_event_whose_text_never_ends_is_given_up_at_32_times_the_limit_and_the_server_sees_it_closed()
            throws Exception {
        assertThat(failure(callThenOk("endless-text-sse")))
                .contains("MCP server \"bounded\" sent an event of more than 2 MiB as sent (its texts cut to 4096 "
                        + "characters) (the server's limit, maxMessageMiB)");
        assertThat(stoppedAfter("endless-text-sse")).isLessThan(ENDLESS_CAP);
    }

    @Test
    void an_event_line_without_end_is_given_up_at_the_limit_and_the_server_sees_it_closed() throws Exception {
        assertThat(failure(callThenOk("endless-line-sse")))
                .contains("MCP server \"bounded\" sent an event of more than 64 KiB even with its texts cut");
        assertThat(stoppedAfter("endless-line-sse")).isLessThan(ENDLESS_CAP);
    }

    @Test
    void an_event_without_end_on_the_stream_of_notifications_closes_that_stream_and_calls_go_on() throws Exception {
        endlessNotifications = true;
        try (McpServers servers = connect(); ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            assertThat(stoppedAfter("GET")).isLessThan(ENDLESS_CAP);
            ToolChainResult ok = new ToolChain(registry)
                    .execute(List.of(ReferenceServersTest.call("bounded", "ok", Map.of())));
            assertThat(ReferenceServersTest.succeeded(ok).text()).isEqualTo("still here");
        }
    }

    @Test
    void a_json_body_cut_in_half_fails_the_call_at_once_saying_so() {
        assertThat(failure(callThenOk("half-json"))).contains("MCP server \"bounded\"").contains("broke off");
    }

    @Test
    void a_complete_body_holding_half_a_message_fails_the_call_at_once_saying_so() {
        assertThat(failure(callThenOk("half-json-chunked")))
                .contains("MCP server \"bounded\" answered with a body that is not a JSON-RPC message (cut short?)");
    }

    @Test
    void an_event_stream_cut_in_half_fails_the_call_at_once() {
        assertThat(failure(callThenOk("half-sse"))).contains("the server ended the response stream before answering");
    }

    @Test
    void one_huge_text_arrives_cut_and_the_model_reads_how_much_of_what_was_sent_was_left_out() {
        ToolCallOutcome outcome = callThenOk("huge-text-json");
        assertThat(outcome).isInstanceOf(ToolCallOutcome.Succeeded.class);
        String text = outcome.text();
        assertThat(text).startsWith("0123456789").doesNotContain("as they arrived")
                .contains("characters (about ").contains("to keep it within 1,000 tokens");
        String note = text.substring(text.lastIndexOf("[this result was cut: "));
        long[] counts = Arrays.stream(note.replace(",", "").split(" ")).filter(w -> w.matches("\\d+"))
                .mapToLong(Long::parseLong).limit(2).toArray();
        int kept = text.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut");
        assertThat(counts).containsExactly(1_000_000L - kept, 1_000_000L);
    }

    @Test
    void the_limit_is_read_from_the_configuration_in_mib() {
        var config = McpConfig.parse("{\"mcpServers\": {\"r\": {\"url\": \"http://127.0.0.1:1/mcp\", \"maxMessageMiB\": 4},"
                + " \"s\": {\"command\": \"node\"}}}", "test", null);
        assertThat(config.get(0).maxMessageBytes()).isEqualTo(4 << 20);
        assertThat(config.get(1).maxMessageBytes()).isEqualTo(McpServerConfig.DEFAULT_MAX_MESSAGE_BYTES);
        for (String wrong : List.of("0", "1025", "1.5", "\"8\"")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> McpConfig.parse("{\"mcpServers\": {\"r\": {\"url\":"
                            + " \"http://127.0.0.1:1/mcp\", \"maxMessageMiB\": " + wrong + "}}}", "test", null))
                    .isInstanceOf(McpConfigException.class)
                    .hasMessage("test: mcpServers.r: \"maxMessageMiB\" must be a whole number of MiB from 1 to 1024");
        }
    }

    /** The bytes the server wrote of an endless response before its write failed: the client closed it. */
    private long stoppedAfter(String tool) throws InterruptedException {
        for (int i = 0; i < 1200; i++) { // a bound on a background event, not a measure of time
            for (String line : log) {
                if (line.startsWith("STOPPED " + tool + " ")) {
                    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the server never saw its endless response closed: " + log);
    }

    // --- the server ---

    private void handle(HttpExchange exchange) throws IOException {
        switch (exchange.getRequestMethod()) {
            case "GET" -> {
                if (endlessNotifications) {
                    sse(exchange);
                    endless(exchange, "GET", "data: ");
                    return;
                }
                exchange.sendResponseHeaders(405, -1); // no standalone stream
                exchange.close();
            }
            case "DELETE" -> {
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            }
            default -> post(exchange);
        }
    }

    private void post(HttpExchange exchange) throws IOException {
        JsonNode message = JSON.readTree(exchange.getRequestBody());
        String method = message.path("method").asString();
        JsonNode id = message.get("id");
        switch (method) {
            case "initialize" -> {
                sessions.incrementAndGet();
                json(exchange, Map.of("jsonrpc", "2.0", "id", id, "result", Map.of(
                        "protocolVersion", message.at("/params/protocolVersion").asString(),
                        "capabilities", Map.of("tools", Map.of()),
                        "serverInfo", Map.of("name", "bounded", "version", "1"))));
            }
            case "tools/list" -> {
                List<Map<String, Object>> tools = new ArrayList<>();
                for (String name : List.of("ok", "many-json", "many-sse", "many-lines-sse", "endless-text-sse",
                        "endless-line-sse", "half-json", "half-json-chunked", "half-sse", "huge-text-json")) {
                    tools.add(Map.of("name", name, "description", name, "inputSchema", Map.of("type", "object")));
                }
                json(exchange, Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("tools", tools)));
            }
            case "tools/call" -> call(exchange, message.at("/params/name").asString(), id);
            default -> {
                exchange.sendResponseHeaders(202, -1);
                exchange.close();
            }
        }
    }

    private void call(HttpExchange exchange, String tool, JsonNode id) throws IOException {
        String idJson = JSON.writeValueAsString(id);
        String head = "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":{\"content\":[";
        switch (tool) {
            case "ok" -> json(exchange, answer(id, List.of("still here")));
            // 100 texts of 2,000 characters: none is cut, together 200 KB.
            case "many-json" -> json(exchange, answer(id, Collections.nCopies(100, "y".repeat(2000))));
            case "many-sse" -> {
                sse(exchange);
                write(exchange, "data: " + JSON.writeValueAsString(answer(id, Collections.nCopies(100, "y".repeat(2000))))
                        + "\n\n");
                exchange.close();
            }
            case "many-lines-sse" -> {
                // One message spread over data lines of 2 KB each (JSON allows a line break between values).
                sse(exchange);
                StringBuilder event = new StringBuilder("data: " + head + "\n");
                for (int i = 0; i < 100; i++) {
                    event.append("data: {\"type\":\"text\",\"text\":\"").append("y".repeat(2000)).append("\"},\n");
                }
                event.append("data: {\"type\":\"text\",\"text\":\"end\"}]}}\n\n");
                write(exchange, event.toString());
                exchange.close();
            }
            case "endless-text-sse" -> {
                sse(exchange);
                endless(exchange, tool, "data: " + head + "{\"type\":\"text\",\"text\":\"");
            }
            case "endless-line-sse" -> {
                sse(exchange);
                endless(exchange, tool, "data: ");
            }
            case "half-json" -> {
                byte[] body = JSON.writeValueAsBytes(answer(id, List.of("a whole answer that never arrives whole")));
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                OutputStream out = exchange.getResponseBody();
                out.write(body, 0, body.length / 2);
                out.flush();
                exchange.close(); // fewer bytes than announced: the server drops the connection
            }
            case "half-json-chunked" -> {
                byte[] body = JSON.writeValueAsBytes(answer(id, List.of("a whole answer that never arrives whole")));
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body, 0, body.length / 2);
                }
            }
            case "half-sse" -> {
                sse(exchange);
                String event = "data: " + JSON.writeValueAsString(answer(id, List.of("never whole"))) + "\n\n";
                write(exchange, event.substring(0, event.length() / 2));
                exchange.close();
            }
            case "huge-text-json" -> json(exchange, answer(id, List.of("0123456789".repeat(100_000))));
            default -> throw new IllegalStateException(tool);
        }
    }

    private static Map<String, Object> answer(JsonNode id, List<String> texts) {
        return Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("content",
                texts.stream().map(text -> Map.of("type", "text", "text", text)).toList()));
    }

    /** Writes {@code start}, then "x" without end, until a write fails (the client closed the stream) or the cap. */
    private void endless(HttpExchange exchange, String tool, String start) {
        byte[] more = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
        long written = 0;
        try {
            OutputStream out = exchange.getResponseBody();
            out.write(start.getBytes(StandardCharsets.UTF_8));
            while (written < ENDLESS_CAP) {
                out.write(more);
                out.flush();
                written += more.length;
            }
        } catch (IOException e) {
            // the client closed the stream
        }
        log.add("STOPPED " + tool + " " + written);
        exchange.close();
    }

    private static void json(HttpExchange exchange, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Mcp-Session-Id", "session-1");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sse(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
    }

    private static void write(HttpExchange exchange, String text) throws IOException {
        OutputStream out = exchange.getResponseBody();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
