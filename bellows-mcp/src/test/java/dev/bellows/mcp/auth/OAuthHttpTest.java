package dev.bellows.mcp.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OAuth requests read answers in bounded memory, against a server on 127.0.0.1: a metadata
 * document or token response larger than 1 MiB (or one that never ends) fails naming the URL
 * and the limit, its connection closed (the server sees its writes fail); a page the headless
 * browser visits is never read (only its status and Location matter).
 */
class OAuthHttpTest {

    /** Where a server writing without end gives up if the client never closes: far beyond the bound. */
    private static final long ENDLESS_CAP = 256L << 20;

    private HttpServer server;
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final OAuthHttp http = new OAuthHttp();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/small", exchange -> answer(exchange, "{\"issuer\":\"x\"}"));
        server.createContext("/endless", this::endless);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI at(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Test
    void a_document_of_ordinary_size_is_read_whole() throws Exception {
        OAuthHttp.Document document = http.get(at("/small"));
        assertThat(document.statusCode()).isEqualTo(200);
        assertThat(document.body()).isEqualTo("{\"issuer\":\"x\"}");
    }

    @Test
    void a_metadata_document_that_never_ends_fails_at_1_mib_and_its_connection_is_closed() throws Exception {
        assertThatThrownBy(() -> http.get(at("/endless/.well-known/oauth-authorization-server")))
                .isInstanceOf(OAuthException.class)
                .hasMessage("the answer of " + at("/endless/.well-known/oauth-authorization-server")
                        + " is larger than 1 MiB: not read on (no metadata document or token response is that large)");
        assertThat(stoppedAfter()).isLessThan(ENDLESS_CAP);
    }

    @Test
    void a_token_response_that_never_ends_fails_at_1_mib() throws Exception {
        HTTPRequest request = new HTTPRequest(HTTPRequest.Method.POST, at("/endless/token"));
        request.setBody("grant_type=client_credentials");
        assertThatThrownBy(() -> http.send(request)).isInstanceOf(OAuthException.class)
                .hasMessageContaining("is larger than 1 MiB: not read on");
        assertThat(stoppedAfter()).isLessThan(ENDLESS_CAP);
    }

    @Test
    void a_page_the_headless_browser_visits_is_not_read() throws Exception {
        assertThat(http.visit(at("/endless/authorize")).statusCode()).isEqualTo(200);
        assertThat(stoppedAfter()).isLessThan(ENDLESS_CAP);
    }

    /** The bytes the server wrote of its endless answer before a write failed: the client closed it. */
    private long stoppedAfter() throws InterruptedException {
        for (int i = 0; i < 1200; i++) { // a bound on a background event, not a measure of time
            if (!log.isEmpty()) {
                return Long.parseLong(log.getFirst());
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the server never saw its endless answer closed");
    }

    private void endless(HttpExchange exchange) {
        byte[] more = " ".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
        long written = 0;
        try {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write('{');
            while (written < ENDLESS_CAP) {
                out.write(more);
                out.flush();
                written += more.length;
            }
        } catch (IOException e) {
            // the client closed the connection
        }
        log.add(Long.toString(written));
        exchange.close();
    }

    private static void answer(HttpExchange exchange, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
