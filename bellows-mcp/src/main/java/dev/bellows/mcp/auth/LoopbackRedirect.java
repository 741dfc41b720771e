package dev.bellows.mcp.auth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The loopback redirect URI {@code http://127.0.0.1:PORT/callback} (RFC 8252): listens on
 * 127.0.0.1 until the authorization server's redirect arrives with a code (or an error), then
 * stops. Only the first request to {@code /callback} counts.
 */
final class LoopbackRedirect implements AutoCloseable {

    /** What the redirect carried: a code, or an error. */
    record Answer(OAuthSecret code, String state, String error, String description) {
    }

    private final HttpServer server;
    private final CompletableFuture<Answer> answer = new CompletableFuture<>();

    private LoopbackRedirect(HttpServer server) {
        this.server = server;
    }

    /**
     * Listens on the port (0: a free one).
     *
     * @throws OAuthException when the port is taken
     */
    static LoopbackRedirect open(int port) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 4);
        } catch (BindException e) {
            throw new OAuthException("cannot listen for the login's redirect on 127.0.0.1:" + port
                    + ": the port is in use (another login under way?)");
        } catch (IOException e) {
            throw new OAuthException("cannot listen for the login's redirect on 127.0.0.1:" + port + ": " + e.getMessage());
        }
        LoopbackRedirect redirect = new LoopbackRedirect(server);
        server.createContext("/", redirect::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return redirect;
    }

    int port() {
        return server.getAddress().getPort();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port() + "/callback");
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals("/callback") || answer.isDone()) {
                respond(exchange, 404, "Not found.");
                return;
            }
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            String code = query.get("code");
            String error = query.get("error");
            if (code == null && error == null) {
                respond(exchange, 400, "This page expects the authorization server's redirect.");
                return;
            }
            answer.complete(new Answer(code == null ? null : OAuthSecret.of(code), query.get("state"), error,
                    query.get("error_description")));
            respond(exchange, 200, error == null
                    ? "Bellows is authorized. You can close this page and go back to the terminal."
                    : "The authorization was not given (" + error + "). You can close this page.");
        }
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = ("<!doctype html><meta charset=utf-8><title>Bellows</title><p>" + text.replace("<", "&lt;") + "</p>")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Waits for the redirect at most {@code timeout}. */
    Answer await(Duration timeout) throws InterruptedException {
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new OAuthException("no login within " + timeout.toSeconds() + " s: the authorization server never "
                    + "redirected back to Bellows");
        } catch (ExecutionException e) {
            throw new OAuthException("the login failed: " + e.getCause().getMessage());
        }
    }

    /** Whether the redirect has arrived. */
    boolean answered() {
        return answer.isDone();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.putIfAbsent(name, value);
        }
        return out;
    }

    @Override
    public void close() {
        answer.completeExceptionally(new OAuthException("closed"));
        server.stop(0);
    }
}
