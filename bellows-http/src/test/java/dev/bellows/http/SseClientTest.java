package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SseClientTest {

    private static final String SECRET = "sk-test-0123456789abcdef-SECRET";
    private static final ApiKey KEY = ApiKey.of(SECRET);
    private static final Map<String, String> AUTH = Map.of("Authorization", "Bearer " + SECRET);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<String> requestBodies = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    private SseClient client(HttpSettings settings) {
        SseClient client = new SseClient(settings);
        resources.add(client);
        return client;
    }

    private SseClient client() {
        return client(HttpSettings.defaults());
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    interface Handler {
        void handle(HttpExchange exchange) throws IOException;
    }

    /** An HttpServer on 127.0.0.1 answering every request with the handler; returns its URI. */
    private URI serve(Handler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                requestBodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
                handler.handle(exchange);
            }
        });
        server.start();
        resources.add(() -> server.stop(0));
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
    }

    private URI respond(int status, Map<String, String> headers, String body) throws IOException {
        return serve(exchange -> {
            headers.forEach(exchange.getResponseHeaders()::add);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            exchange.getResponseBody().write(bytes);
        });
    }

    private static List<SseEvent> drain(SseConnection connection) throws ProviderException {
        List<SseEvent> events = new ArrayList<>();
        for (SseEvent event; (event = connection.next()) != null; ) {
            events.add(event);
        }
        return events;
    }

    private ProviderException postFails(SseClient client, URI uri) {
        return catchThrowableOfType(ProviderException.class, () -> client.post(uri, AUTH, "{}", KEY));
    }

    @Test
    void streamsEventsWrittenInSmallPiecesWithFlushes() throws Exception {
        String stream = "\uFEFF: hello\r\n\r\nevent: message_start\r\ndata: {\"x\":\"h\u00e9llo \u20ac \uD83D\uDE00\"}\r\n\r\n"
                + "data: line 1\ndata: line 2\n\nid: 42\rdata: [DONE]\r\r";
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        URI uri = serve(exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (int i = 0; i < bytes.length; i += 3) {
                out.write(bytes, i, Math.min(3, bytes.length - i));
                out.flush();
            }
        });

        try (SseConnection connection = client().post(uri, AUTH, "{\"stream\":true}", KEY)) {
            assertThat(connection.statusCode()).isEqualTo(200);
            assertThat(connection.headers()).containsKey("content-type");
            assertThat(drain(connection)).containsExactly(
                    new SseEvent("message_start", "{\"x\":\"h\u00e9llo \u20ac \uD83D\uDE00\"}", null),
                    new SseEvent("message", "line 1\nline 2", null),
                    new SseEvent("message", "[DONE]", "42"));
            assertThat(connection.next()).isNull();
        }
        assertThat(requestBodies).containsExactly("{\"stream\":true}");
        assertThat(authorizations).containsExactly("Bearer " + SECRET);
    }

    @Test
    void streamLongerThanTheIdleTimeoutIsFineWhileBytesKeepComing() throws Exception {
        // The idle timeout bounds each wait for the next bytes, not the stream. The watchdog is
        // driven by hand: before each event it is told that half the timeout has passed since
        // the read now waiting began (and so, in all, four times the timeout), and nothing fails.
        java.util.concurrent.Semaphore next = new java.util.concurrent.Semaphore(0);
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            for (int i = 0; i < 8; i++) {
                next.acquire();
                RawServer.chunk(out, "data: " + i + "\n\n");
            }
            RawServer.write(out, "0\r\n\r\n");
        }));
        Duration idle = Duration.ofMinutes(1);
        Watchdog watchdog = manualWatchdog();
        SseClient client = open(new SseClient(new HttpSettings(Duration.ofSeconds(5), idle), watchdog));
        try (SseConnection connection = client.post(server.uri("/x"), Map.of(), "{}", null)) {
            List<String> data = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CompletableFuture<SseEvent> event = new CompletableFuture<>();
                Thread reader = Thread.ofPlatform().start(() -> {
                    try {
                        event.complete(connection.next());
                    } catch (ProviderException e) {
                        event.completeExceptionally(e);
                    }
                });
                while (reader.getState() != Thread.State.WAITING && !event.isDone()) {
                    Thread.onSpinWait();     // until next() waits for the next byte
                }
                watchdog.tick(System.nanoTime() + idle.toNanos() / 2);
                next.release();
                data.add(event.get(30, TimeUnit.SECONDS).data());
            }
            assertThat(data).containsExactly("0", "1", "2", "3", "4", "5", "6", "7");
            assertThat(connection.next()).isNull();
        }
    }

    /** A watchdog without a thread: it expires deadlines only when the test calls tick(). */
    private static Watchdog manualWatchdog() {
        return new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
    }

    @Test
    void openAiErrorBodyGivesTheProvidersMessage() throws Exception {
        URI uri = respond(401, Map.of(), """
                {"error": {"message": "Incorrect API key provided: sk-abc***xyz.", "type": "invalid_request_error", "code": "invalid_api_key"}}""");
        URI withQueryAndUser = URI.create(uri.toString().replace("http://", "http://user:pw@") + "?api-key=" + SECRET);

        ProviderException failure = postFails(client(), withQueryAndUser);

        assertThat(failure.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(failure.statusCode()).hasValue(401);
        assertThat(failure.getMessage()).isEqualTo("HTTP 401 from " + uri + ": Incorrect API key provided: sk-abc***xyz.");
    }

    @Test
    void anthropicErrorBodyGivesTheProvidersMessage() throws Exception {
        URI uri = respond(529, Map.of(), "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.SERVER_ERROR);
        assertThat(failure.getMessage()).isEqualTo("HTTP 529 from " + uri + ": Overloaded");
        assertThat(failure.retryAfter()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"400, CLIENT_ERROR", "401, CLIENT_ERROR", "403, CLIENT_ERROR", "404, CLIENT_ERROR", "422, CLIENT_ERROR",
            "408, SERVER_ERROR", "409, SERVER_ERROR", "429, RATE_LIMITED", "500, SERVER_ERROR", "502, SERVER_ERROR",
            "503, SERVER_ERROR", "504, SERVER_ERROR"})
    void statusesAreClassifiedForRetrying(int status, Kind kind) throws Exception {
        URI uri = respond(status, Map.of(), "{\"message\":\"nope\"}");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(kind);
        assertThat(failure.retryable()).isEqualTo(kind != Kind.CLIENT_ERROR);
        assertThat(failure.getMessage()).isEqualTo("HTTP " + status + " from " + uri + ": nope");
    }

    @Test
    void notImplementedIsFinalAndSaysWhatToCheck() throws Exception {
        URI uri = serve(exchange -> {
            byte[] page = "<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 501</p></body></html>"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html;charset=utf-8");
            exchange.sendResponseHeaders(501, page.length);
            exchange.getResponseBody().write(page);
        });
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(failure.retryable()).isFalse();
        assertThat(failure.getMessage()).isEqualTo("HTTP 501 (Not Implemented) from " + uri
                + "; the server does not implement this request: check that the base URL is the API's");
    }

    @Test
    void aWebPageWithAnErrorStatusIsNamedNotQuoted() throws Exception {
        URI uri = serve(exchange -> {
            byte[] page = "<html><body>Not Found</body></html>".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(404, page.length);
            exchange.getResponseBody().write(page);
        });
        assertThat(postFails(client(), uri).getMessage()).isEqualTo("HTTP 404 from " + uri
                + "; it answered with a web page (text/html), not the API: check the base URL");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "text/html; charset=utf-8 | <html><body>Welcome to nginx!</body></html> | text/html",
            "application/json         | {\"error\": {\"message\": \"stream not supported\"}} | application/json",
            "text/plain               | hello                                     | text/plain"})
    void aSuccessThatIsNotAnEventStreamIsAFinalErrorNamingItsContentType(String contentType, String body,
                                                                         String named) throws Exception {
        URI uri = serve(exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", contentType);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
        });
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.PROTOCOL);
        assertThat(failure.retryable()).isFalse();
        assertThat(failure.getMessage()).startsWith("the server at " + uri + " answered with " + named
                + ", not an event stream (text/event-stream)")
                .endsWith("check that the base URL is the API's (for OpenAI-compatible servers it usually ends in /v1)")
                .doesNotContain("<html>");
        if (named.equals("application/json")) {
            assertThat(failure.getMessage()).contains(": stream not supported;");
        }
    }

    @Test
    void rateLimitWithRetryAfterSeconds() throws Exception {
        URI uri = respond(429, Map.of("Retry-After", "7"), "{\"error\":{\"message\":\"slow down\"}}");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(failure.retryAfter()).hasValue(Duration.ofSeconds(7));
        assertThat(failure.getMessage()).endsWith(": slow down");
    }

    @Test
    void rateLimitWithRetryAfterHttpDate() throws Exception {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(120));
        URI uri = respond(429, Map.of("Retry-After", date), "{\"error\":{\"message\":\"slow down\"}}");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.RATE_LIMITED);
        // a date 120 s ahead, seen some time later: positive and at most 120 s
        assertThat(failure.retryAfter()).hasValueSatisfying(wait ->
                assertThat(wait).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(120)));
    }

    @Test
    void retryAfterParsing() {
        var now = ZonedDateTime.of(2025, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC).toInstant();
        assertThat(HttpFailures.retryAfter("30", now)).isEqualTo(Duration.ofSeconds(30));
        assertThat(HttpFailures.retryAfter(" 0 ", now)).isEqualTo(Duration.ZERO);
        assertThat(HttpFailures.retryAfter("Thu, 02 Jan 2025 03:05:05 GMT", now)).isEqualTo(Duration.ofSeconds(60));
        assertThat(HttpFailures.retryAfter("Thu, 02 Jan 2025 03:00:00 GMT", now)).isEqualTo(Duration.ZERO);
        assertThat(HttpFailures.retryAfter("soon", now)).isNull();
        assertThat(HttpFailures.retryAfter("-5", now)).isNull();
        assertThat(HttpFailures.retryAfter("99999999999999999999", now)).isPositive();
        assertThat(HttpFailures.retryAfter(null, now)).isNull();
    }

    @Test
    void connectionRefused() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        URI uri = URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.CONNECTION);
        assertThat(failure.retryable()).isTrue();
        assertThat(failure.getMessage()).startsWith("cannot reach " + uri + ": ").containsIgnoringCase("refused");
    }

    @Test
    void unknownHost() {
        URI uri = URI.create("http://no-such-host.invalid/v1/chat/completions");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.CONNECTION);
        assertThat(failure.getMessage()).startsWith("cannot reach " + uri + ": ");
    }

    @Test
    void connectionClosedBeforeTheStatusLine() throws Exception {
        // Every connection is closed unanswered: the client's one immediate second try (for a
        // kept-alive connection the server let go as the request went out) meets the same.
        ServerSocket server = open(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        Thread.ofPlatform().daemon().start(() -> {
            while (!server.isClosed()) {
                try (java.net.Socket socket = server.accept()) {
                    accepted.incrementAndGet();
                } catch (IOException closed) {
                    return;
                }
            }
        });
        URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/chat/completions");
        ProviderException failure = postFails(client(), uri);
        assertThat(failure.kind()).isEqualTo(Kind.CONNECTION);
        assertThat(failure.getMessage()).startsWith("cannot reach " + uri);
        assertThat(accepted).hasValue(2);
    }

    @Test
    void serverClosingMidStreamIsAStreamBreak() throws Exception {
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: first\n\n");
            RawServer.chunk(out, "data: sec");
            socket.close();      // no terminating zero-size chunk
        }));
        try (SseConnection connection = client().post(server.uri("/v1/chat/completions"), AUTH, "{}", KEY)) {
            assertThat(connection.next()).isEqualTo(new SseEvent("message", "first", null));
            ProviderException failure = catchThrowableOfType(ProviderException.class, connection::next);
            assertThat(failure.kind()).isEqualTo(Kind.STREAM_BROKEN);
            assertThat(failure.getMessage()).startsWith("the stream from " + server.uri("/v1/chat/completions") + " broke off");
        }
    }

    @Test
    void bodyShorterThanItsContentLengthIsAStreamBreak() throws Exception {
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 1000\r\n\r\n"
                    + "data: first\n\n");
            socket.close();
        }));
        try (SseConnection connection = client().post(server.uri("/x"), AUTH, "{}", KEY)) {
            assertThat(connection.next()).isEqualTo(new SseEvent("message", "first", null));
            assertThat(catchThrowableOfType(ProviderException.class, connection::next).kind()).isEqualTo(Kind.STREAM_BROKEN);
        }
    }

    @Test
    void cleanEndOfAChunkedStreamIsNull() throws Exception {
        RawServer[] holder = new RawServer[1];
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: only\n\ndata: unterminated");
            RawServer.write(out, "0\r\n\r\n");
            holder[0].stall();    // the socket stays open: the body ends with the zero-size chunk
        }));
        holder[0] = server;
        try (SseConnection connection = client().post(server.uri("/x"), AUTH, "{}", KEY)) {
            assertThat(drain(connection)).containsExactly(new SseEvent("message", "only", null));
        }
    }

    @Test
    void noByteWithinTheIdleTimeoutIsATimeout() throws Exception {
        RawServer[] holder = new RawServer[1];
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: first\n\n");
            holder[0].stall();
        }));
        holder[0] = server;
        // The watchdog is driven by hand, told the time once the read waits: a loaded machine
        // (a slow connect, a late thread) cannot make it expire anything early or late.
        Watchdog watchdog = manualWatchdog();
        SseClient client = open(new SseClient(new HttpSettings(Duration.ofSeconds(5), Duration.ofSeconds(1)), watchdog));
        try (SseConnection connection = client.post(server.uri("/x"), AUTH, "{}", KEY)) {
            assertThat(connection.next()).isEqualTo(new SseEvent("message", "first", null));
            CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    connection.next();
                    outcome.complete(null);
                } catch (ProviderException e) {
                    outcome.complete(e);
                }
            });
            while (reader.getState() != Thread.State.WAITING && !outcome.isDone()) {
                Thread.onSpinWait();     // until next() waits for the next byte
            }
            watchdog.tick(System.nanoTime() + Duration.ofSeconds(1).toNanos());
            ProviderException failure = outcome.get(30, TimeUnit.SECONDS);
            assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
            assertThat(failure.getMessage()).isEqualTo("no data from " + server.uri("/x") + " for 1 s");
        }
    }

    @Test
    void noResponseWithinTheIdleTimeoutIsATimeout() throws Exception {
        RawServer[] holder = new RawServer[1];
        RawServer server = open(new RawServer((out, socket) -> holder[0].stall()));
        holder[0] = server;
        Watchdog watchdog = manualWatchdog();
        SseClient client = open(new SseClient(new HttpSettings(Duration.ofSeconds(5), Duration.ofSeconds(1)), watchdog));
        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> outcome.complete(postFails(client, server.uri("/x"))));
        while (caller.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();         // until post() waits for the status line
        }
        watchdog.tick(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        ProviderException failure = outcome.get(30, TimeUnit.SECONDS);
        assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(failure.getMessage()).isEqualTo("no response from " + server.uri("/x") + " within 1 s");
    }

    @Test
    void interruptWhileWaitingForTheHeadersIsACancellationAndKeepsTheInterrupt() throws Exception {
        RawServer[] holder = new RawServer[1];
        RawServer server = open(new RawServer((out, socket) -> holder[0].stall()));
        holder[0] = server;
        SseClient client = client();
        CompletableFuture<Object[]> outcome = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            ProviderException failure = postFails(client, server.uri("/x"));
            outcome.complete(new Object[] {failure, Thread.currentThread().isInterrupted()});
        });
        while (caller.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();     // until post() waits for the status line (an untimed wait)
        }
        caller.interrupt();

        Object[] result = outcome.get(30, TimeUnit.SECONDS);
        ProviderException failure = (ProviderException) result[0];
        assertThat(failure.kind()).isEqualTo(Kind.CANCELLED);
        assertThat(failure.getMessage()).isEqualTo("the request to " + server.uri("/x") + " was cancelled");
        assertThat((Boolean) result[1]).isTrue();
    }

    @Test
    void cancelFromAnotherThreadWhileNextIsBlocked() throws Exception {
        RawServer[] holder = new RawServer[1];
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: first\n\n");
            holder[0].stall();
        }));
        holder[0] = server;
        SseConnection connection = open(client().post(server.uri("/x"), AUTH, "{}", KEY));
        assertThat(connection.next()).isNotNull();

        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                connection.next();
                outcome.complete(null);
            } catch (ProviderException e) {
                outcome.complete(e);
            }
        });
        while (reader.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();     // until next() blocks for the next byte
        }
        connection.cancel();

        ProviderException failure = outcome.get(30, TimeUnit.SECONDS);
        assertThat(failure).isNotNull();
        assertThat(failure.kind()).isEqualTo(Kind.CANCELLED);
        assertThat(catchThrowableOfType(ProviderException.class, connection::next).kind()).isEqualTo(Kind.CANCELLED);
    }

    @Test
    void apiKeyNeverAppearsEvenWhenTheServerEchoesIt() throws Exception {
        URI uri = serve(exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            byte[] body = ("{\"error\":{\"message\":\"Incorrect API key provided: " + auth + "\"}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("X-Echo", auth);
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
        });
        URI withKeyInQuery = URI.create(uri + "?key=" + SECRET);
        SseClient client = client();

        ProviderException streaming = postFails(client, withKeyInQuery);
        ProviderException plain = catchThrowableOfType(ProviderException.class,
                () -> client.postJson(withKeyInQuery, AUTH, "{}", KEY));

        for (ProviderException failure : List.of(streaming, plain)) {
            assertThat(failure.getMessage()).contains("Incorrect API key provided: Bearer [REDACTED]");
            assertThat(failure.getMessage()).doesNotContain(SECRET);
            assertThat(failure.toString()).doesNotContain(SECRET);
            assertThat(stackTraceOf(failure)).doesNotContain(SECRET);
        }
        assertThat(client.toString()).doesNotContain(SECRET);
        assertThat(KEY.toString()).doesNotContain(SECRET);
    }

    @Test
    void apiKeyCutByTheMessageLengthLimitStillDoesNotAppear() throws Exception {
        // The key straddles the point where a long error message is shortened: redacting
        // after shortening would leave the key's first half in the message.
        URI uri = serve(exchange -> {
            String message = "x".repeat(290) + " " + SECRET + " tail";
            byte[] body = ("{\"error\":{\"message\":\"" + message + "\"}}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(400, body.length);
            exchange.getResponseBody().write(body);
        });

        ProviderException failure = postFails(client(), uri);

        assertThat(failure.getMessage()).doesNotContain(SECRET.substring(0, 8));
    }

    @Test
    void apiKeyNeverAppearsInConnectionFailures() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        URI uri = URI.create("http://" + SECRET + "@127.0.0.1:" + port + "/v1?key=" + SECRET);
        ProviderException failure = postFails(client(), uri);
        assertThat(stackTraceOf(failure)).doesNotContain(SECRET);
    }

    @Test
    void postJsonReturnsTheBody() throws Exception {
        URI uri = respond(200, Map.of(), "{\"choices\":[{\"message\":{\"content\":\"h\u00e9\"}}]}");
        assertThat(client().postJson(uri, AUTH, "{\"stream\":false}", KEY))
                .isEqualTo("{\"choices\":[{\"message\":{\"content\":\"h\u00e9\"}}]}");
        assertThat(requestBodies).containsExactly("{\"stream\":false}");
    }

    @Test
    void postJsonClassifiesErrorsTheSameWay() throws Exception {
        URI uri = respond(503, Map.of("Retry-After", "3"), "{\"error\":{\"message\":\"busy\"}}");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> client().postJson(uri, AUTH, "{}", KEY));
        assertThat(failure.kind()).isEqualTo(Kind.SERVER_ERROR);
        assertThat(failure.retryAfter()).hasValue(Duration.ofSeconds(3));
        assertThat(failure.getMessage()).isEqualTo("HTTP 503 from " + uri + ": busy");
    }

    @Test
    void invalidHeaderValueIsReportedWithoutItsValue() throws Exception {
        URI uri = respond(200, Map.of(), "{}");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> client().post(uri, Map.of("Authorization", "Bearer " + SECRET + "\n"), "{}", KEY));
        assertThat(failure.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(stackTraceOf(failure)).doesNotContain(SECRET);
    }

    private static String stackTraceOf(Throwable failure) {
        java.io.StringWriter out = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

}
