package dev.bellows.mcp;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bellows' Streamable HTTP transport against a small server on 127.0.0.1 that ends response
 * streams early on purpose: the call resumes with a GET carrying the session id and
 * {@code Last-Event-ID}, a stream that cannot be resumed fails the call instead of hanging,
 * and a call that times out is cancelled with {@code notifications/cancelled}.
 */
class StreamableHttpResumeTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final String SESSION = "session-42";

    private HttpServer server;
    private final List<String> log = new CopyOnWriteArrayList<>();
    private volatile Object pendingId;
    private volatile String liveSession = SESSION;
    private volatile int sessions;

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

    private McpServers connect(Duration callTimeout) {
        return McpServers.start(List.of(McpServerConfig.http("resumable",
                        "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp")
                .header("Authorization", "Bearer token-1").callTimeout(callTimeout).build()), McpListener.NONE);
    }

    @Test
    void a_closed_response_stream_is_resumed_with_the_session_and_last_event_id() {
        try (McpServers servers = connect(Duration.ofSeconds(60));
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).isEmpty();
            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(ReferenceServersTest.call("resumable", "resume", Map.of())));
            assertThat(ReferenceServersTest.succeeded(result).text()).contains("answered after resuming");
            assertThat(log).contains("GET session=" + SESSION + "-1 last-event-id=e1 auth=Bearer token-1");
        }
        assertThat(log).contains("DELETE session=" + SESSION + "-1");
    }

    @Test
    void a_stream_that_cannot_be_resumed_fails_the_call_plainly() {
        try (McpServers servers = connect(Duration.ofSeconds(60));
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(ReferenceServersTest.call("resumable", "vanish", Map.of())));
            assertThat(ReferenceServersTest.text(result)).contains("the server ended the response stream before answering")
                    .contains("no event id to resume from");
        }
    }

    @Test
    void a_call_that_times_out_is_cancelled_over_http() throws Exception {
        try (McpServers servers = connect(Duration.ofSeconds(1));
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChainResult result = new ToolChain(registry)
                    .execute(List.of(ReferenceServersTest.call("resumable", "hang", Map.of())));
            assertThat(ReferenceServersTest.text(result)).contains("did not answer the call within 1 s");
            for (int i = 0; i < 1200 && log.stream().noneMatch(l -> l.startsWith("CANCELLED")); i++) {
                Thread.sleep(50); // the notification is sent in the background; bounded wait
            }
            assertThat(log).contains("CANCELLED " + pendingId);
        }
    }

    @Test
    void a_session_the_server_forgot_fails_one_call_and_the_next_starts_a_new_one() {
        try (McpServers servers = connect(Duration.ofSeconds(60));
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChain chain = new ToolChain(registry);
            ReferenceServersTest.succeeded(chain.execute(List.of(ReferenceServersTest.call("resumable", "forget", Map.of()))));
            // The server answers 404 for the old session: that call fails, saying so, and the SDK,
            // told through the transport's exception handler, initializes a new session for the next.
            ToolChainResult lost = chain.execute(List.of(ReferenceServersTest.call("resumable", "forget", Map.of())));
            assertThat(lost.outcomes().getFirst()).isInstanceOf(dev.bellows.tool.ToolCallOutcome.Failed.class);
            assertThat(ReferenceServersTest.text(lost)).containsIgnoringCase("session");
            ToolChainResult again = chain.execute(List.of(ReferenceServersTest.call("resumable", "forget", Map.of())));
            assertThat(ReferenceServersTest.succeeded(again).text()).contains("forgot every session");
            assertThat(log).contains("404 tools/call");
            assertThat(sessions).isEqualTo(2);
        }
    }

    // --- the server ---

    private void handle(HttpExchange exchange) throws IOException {
        String session = exchange.getRequestHeaders().getFirst("Mcp-Session-Id");
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        switch (exchange.getRequestMethod()) {
            case "GET" -> {
                String lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
                log.add("GET session=" + session + " last-event-id=" + lastEventId + " auth=" + auth);
                if (lastEventId == null || pendingId == null) {
                    exchange.sendResponseHeaders(405, -1); // no standalone stream here
                    exchange.close();
                    return;
                }
                Object id = pendingId;
                pendingId = null;
                sse(exchange, "id: e2\ndata: " + JSON.writeValueAsString(Map.of("jsonrpc", "2.0", "id", id, "result",
                        Map.of("content", List.of(Map.of("type", "text", "text", "answered after resuming"))))) + "\n\n");
                exchange.close();
            }
            case "DELETE" -> {
                log.add("DELETE session=" + session);
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
        String session = exchange.getRequestHeaders().getFirst("Mcp-Session-Id");
        if (session != null && !session.equals(liveSession)) {
            log.add("404 " + method);
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
            return;
        }
        if (method.equals("initialize")) {
            liveSession = SESSION + "-" + (++sessions);
        }
        switch (method) {
            case "initialize" -> json(exchange, Map.of("jsonrpc", "2.0", "id", id, "result", Map.of(
                    "protocolVersion", message.at("/params/protocolVersion").asString(),
                    "capabilities", Map.of("tools", Map.of()),
                    "serverInfo", Map.of("name", "resumable", "version", "1"))));
            case "tools/list" -> json(exchange, Map.of("jsonrpc", "2.0", "id", id, "result", Map.of("tools", List.of(
                    tool("resume"), tool("vanish"), tool("hang"), tool("forget")))));
            case "tools/call" -> {
                String name = message.at("/params/name").asString();
                pendingId = JSON.treeToValue(id, Object.class);
                switch (name) {
                    case "resume" -> {
                        sse(exchange, "id: e1\nretry: 100\ndata: \n\n"); // priming event, then the stream ends
                        exchange.close();
                    }
                    case "forget" -> {
                        // Forgotten before the answer is written, as a server that restarts right
                        // after answering: the client may send its next request as soon as it reads
                        // this one, before this thread would get to run again.
                        String answering = liveSession;
                        liveSession = "forgotten";
                        json(exchange, Map.of("jsonrpc", "2.0", "id", id, "result",
                                Map.of("content", List.of(Map.of("type", "text", "text", "forgot every session")))),
                                answering);
                    }
                    case "vanish" -> {
                        sse(exchange, ": nothing to resume from\n\n");
                        exchange.close();
                    }
                    default -> sse(exchange, "id: h1\ndata: \n\n"); // and never an answer: left open
                }
            }
            case "notifications/cancelled" -> {
                log.add("CANCELLED " + message.at("/params/requestId").asString());
                exchange.sendResponseHeaders(202, -1);
                exchange.close();
            }
            default -> {
                exchange.sendResponseHeaders(202, -1);
                exchange.close();
            }
        }
    }

    private static Map<String, Object> tool(String name) {
        return Map.of("name", name, "description", name, "inputSchema", Map.of("type", "object"));
    }

    private void json(HttpExchange exchange, Object body) throws IOException {
        json(exchange, body, liveSession);
    }

    private static void json(HttpExchange exchange, Object body, String session) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Mcp-Session-Id", session);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sse(HttpExchange exchange, String events) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        out.write(events.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
