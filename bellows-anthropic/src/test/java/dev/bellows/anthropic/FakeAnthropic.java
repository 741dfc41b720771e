package dev.bellows.anthropic;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An independent fake of the Messages endpoint on 127.0.0.1 (the JDK's HttpServer): it records
 * every request and answers them, in order, with the scripted {@link Answer}s. Answers that
 * stall wait until the fake is closed.
 */
final class FakeAnthropic implements AutoCloseable {

    /** The next chunk of the answer, the frames about it ({@code ResponseInfo}, {@code Usage}) skipped; null at the end. */
    static dev.bellows.stream.StreamChunk nextOfAnswer(dev.bellows.provider.ChatStream stream)
            throws dev.bellows.provider.ProviderException {
        for (dev.bellows.stream.StreamChunk chunk; (chunk = stream.next()) != null; ) {
            if (!(chunk instanceof dev.bellows.stream.StreamChunk.ResponseInfo)
                    && !(chunk instanceof dev.bellows.stream.StreamChunk.Usage)) {
                return chunk;
            }
        }
        return null;
    }

    /** One request as the server saw it. */
    record Recorded(String method, String path, Headers headers, String body) {

        String header(String name) {
            return headers.getFirst(name);
        }
    }

    @FunctionalInterface
    interface Answer {
        void answer(HttpExchange exchange, FakeAnthropic server) throws Exception;
    }

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer server;
    private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    FakeAnthropic() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    FakeAnthropic then(Answer answer) {
        answers.add(answer);
        return this;
    }

    /** The base URL as users give it, with {@code /v1}. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    String root() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Recorded> requests() {
        return requests;
    }

    Recorded onlyRequest() {
        if (requests.size() != 1) {
            throw new AssertionError("expected one request, got " + requests.size());
        }
        return requests.getFirst();
    }

    /** Blocks an answer until the fake is closed. */
    void stall() throws InterruptedException {
        release.await();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders(), body));
            Answer answer = answers.poll();
            if (answer == null) {
                error(500, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"no answer scripted\"}}")
                        .answer(exchange, this);
            } else {
                answer.answer(exchange, this);
            }
        } catch (Exception clientWentAway) {
            // the client cancelled or timed out: nothing to answer any more
        }
    }

    /** A 200 event stream sent in one write. */
    static Answer sse(String events) {
        return writes(events.getBytes(StandardCharsets.UTF_8));
    }

    /** A 200 event stream sent in the given writes, each flushed (an HTTP chunk of its own). */
    static Answer writes(byte[]... parts) {
        return (exchange, server) -> {
            OutputStream out = openStream(exchange);
            for (byte[] part : parts) {
                out.write(part);
                out.flush();
            }
        };
    }

    /** A 200 event stream that sends {@code events} and then sends nothing more until closed. */
    static Answer stallAfter(String events) {
        return (exchange, server) -> {
            OutputStream out = openStream(exchange);
            out.write(events.getBytes(StandardCharsets.UTF_8));
            out.flush();
            server.stall();
        };
    }

    /** An error status with a JSON body. */
    static Answer error(int status, String body) {
        return error(status, body, Map.of());
    }

    static Answer error(int status, String body, Map<String, String> headers) {
        return (exchange, server) -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            headers.forEach(exchange.getResponseHeaders()::set);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        };
    }

    private static OutputStream openStream(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }

    /** One SSE event as Anthropic frames it: {@code event:} name, one {@code data:} line, blank line. */
    static String event(String type, String json) {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
