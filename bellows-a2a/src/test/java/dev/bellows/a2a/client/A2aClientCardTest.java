package dev.bellows.a2a.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Cards the client cannot use are refused with a message that says why, naming the card's URL. */
class A2aClientCardTest {

    private static HttpServer server;
    private static final Map<String, String> CARDS = new ConcurrentHashMap<>();
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            if (exchange.getRequestURI().getPath().startsWith("/moved")) {
                exchange.getResponseHeaders().set("Location", "/card.json?sig=abc");
                exchange.sendResponseHeaders(301, -1);
                exchange.close();
                return;
            }
            String body = CARDS.get(exchange.getRequestURI().getPath());
            byte[] bytes = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        CARDS.put("/notjson/.well-known/agent-card.json", "<html>hello</html>");
        CARDS.put("/old/.well-known/agent-card.json", "{\"name\":\"old\",\"url\":\"http://127.0.0.1:1/\",\"protocolVersion\":\"0.3.0\"}");
        CARDS.put("/grpc/.well-known/agent-card.json", """
                {"name":"g","supportedInterfaces":[{"url":"127.0.0.1:1","protocolBinding":"GRPC","protocolVersion":"1.0"},
                 {"url":"http://127.0.0.1:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"2.0"}]}""");
        CARDS.put("/card.json", """
                {"name":"ok","supportedInterfaces":[{"url":"127.0.0.1:1","protocolBinding":"GRPC","protocolVersion":"1.0"},
                 {"url":"http://127.0.0.1:1/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],
                 "capabilities":{}}""");
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static void refused(String url, String... words) {
        assertThatThrownBy(() -> A2aClient.builder(url).connect())
                .isInstanceOfSatisfying(A2aClientException.class, e -> assertThat(e.kind()).isEqualTo(A2aClientException.Kind.BAD_CARD))
                .message().contains(words);
    }

    @Test
    void badCardsAreRefusedSayingWhy() throws Exception {
        refused(base + "/missing", "cannot read the agent card", "/missing/.well-known/agent-card.json", "HTTP 404");
        refused(base + "/notjson", "not JSON");
        refused(base + "/moved", "HTTP 301 (a redirect to " + base + "/card.json: redirects are not followed");
        refused(base + "/old", "lists no \"supportedInterfaces\"", "A2A 0.3 card");
        refused(base + "/grpc", "offers no interface Bellows speaks", "GRPC 1.0", "JSONRPC 2.0");
        refused("ftp://127.0.0.1/x", "not an http(s) URL");
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        refused("http://127.0.0.1:" + closed, "cannot reach", "connection refused");
    }

    @Test
    void aCardUrlIsUsedAsItIsAndTheInterfaceIsTheFirstSpoken() {
        try (A2aClient client = A2aClient.builder(base + "/card.json").connect()) {
            assertThat(client.endpoint().url()).isEqualTo("http://127.0.0.1:1/rest");
            assertThat(client.streams()).isFalse();
        }
        assertThat(A2aClient.cardUrl("http://h:8/a/?q=1").toString()).isEqualTo("http://h:8/a/.well-known/agent-card.json");
    }
}
