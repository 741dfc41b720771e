package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.http.TlsServer.Offer;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client over TLS, as real users meet it: HTTP/2 negotiated by ALPN (as with the big
 * APIs), and HTTP/1.1 over TLS, against a real Jetty server on 127.0.0.1 with a self-signed
 * certificate that the client is told to trust through {@link HttpSettings#sslContext()}.
 * The client runs its HTTP tasks inline (no executor threads), which these tests exercise
 * under TLS and HTTP/2 flow control.
 */
// A guard against hangs only (a hang fails instead of stalling the build): nothing is timed.
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SseClientTlsTest {

    private static final String SECRET = "sk-test-0123456789abcdef-SECRET";
    private static final ApiKey KEY = ApiKey.of(SECRET);
    private static final Map<String, String> AUTH = Map.of("Authorization", "Bearer " + SECRET);

    @TempDir
    static Path dir;
    private static Path keyStore;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void certificate() throws Exception {
        keyStore = TlsServer.selfSigned(dir);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    private TlsServer serve(Offer offer, TlsServer.Answer answer) throws Exception {
        TlsServer server = new TlsServer(keyStore, offer, answer);
        resources.add(server);
        return server;
    }

    private SseClient client(TlsServer server) {
        return client(server, new Watchdog());
    }

    private SseClient client(TlsServer server, Watchdog watchdog) {
        SseClient client = new SseClient(HttpSettings.defaults().withSslContext(server.clientContext()), watchdog);
        resources.add(client);
        return client;
    }

    /** What the server says the request came in by. */
    private static String protocol(Offer offer) {
        return offer == Offer.H2 ? "HTTP/2.0" : "HTTP/1.1";
    }

    private static List<SseEvent> drain(SseConnection connection) throws ProviderException {
        List<SseEvent> events = new ArrayList<>();
        for (SseEvent event; (event = connection.next()) != null; ) {
            events.add(event);
        }
        return events;
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void manySmallEventsEachFlushedArriveInOrder(Offer offer) throws Exception {
        int count = 2_000;
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            for (int i = 0; i < count; i++) {
                // split inside the event too: the client must join the pieces
                exchange.write("data: {\"i\":");
                exchange.write(i + "}\n\n");
            }
            exchange.write("data: [DONE]\n\n");
        });
        SseClient client = client(server);
        try (SseConnection connection = client.post(server.uri("/v1/chat/completions"), AUTH, "{\"stream\":true}", KEY)) {
            assertThat(connection.statusCode()).isEqualTo(200);
            assertThat(connection.headers().get("x-protocol")).containsExactly(protocol(offer));
            List<String> data = drain(connection).stream().map(SseEvent::data).toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                expected.add("{\"i\":" + i + "}");
            }
            expected.add("[DONE]");
            assertThat(data).isEqualTo(expected);
        }
        assertThat(server.failures()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void aOneMebibyteEventArrivesWhole(Offer offer) throws Exception {
        StringBuilder big = new StringBuilder(1 << 20);
        for (int i = 0; big.length() < 1 << 20; i++) {
            big.append((char) ('a' + i % 26));
        }
        String payload = big.toString();
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            exchange.write("event: big\ndata: " + payload + "\n\ndata: after\n\n");
        });
        SseClient client = client(server);
        try (SseConnection connection = client.post(server.uri("/x"), AUTH, "{}", KEY)) {
            assertThat(connection.headers().get("x-protocol")).containsExactly(protocol(offer));
            SseEvent first = connection.next();
            assertThat(first.event()).isEqualTo("big");
            assertThat(first.data()).hasSize(1 << 20).isEqualTo(payload);
            assertThat(connection.next()).isEqualTo(new SseEvent("message", "after", null));
            assertThat(connection.next()).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void aLargeRequestBodyIsSentWhole(Offer offer) throws Exception {
        // A long conversation (or an image) makes a request of megabytes: over HTTP/2 it goes
        // out as the server's flow-control window opens, each window update handled inline on
        // the client's selector thread.
        StringBuilder json = new StringBuilder("{\"messages\":[");
        for (int i = 0; json.length() < 4 << 20; i++) {
            json.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"message ").append(i).append("\"}");
        }
        String body = json.append("]}").toString();
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            exchange.write("data: " + exchange.requestBody().length() + " " + exchange.requestBody().hashCode() + "\n\n");
        });
        SseClient client = client(server);
        try (SseConnection connection = client.post(server.uri("/x"), AUTH, body, KEY)) {
            assertThat(connection.headers().get("x-protocol")).containsExactly(protocol(offer));
            assertThat(drain(connection)).containsExactly(
                    new SseEvent("message", body.length() + " " + body.hashCode(), null));
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void fiftyConcurrentStreamsOverHttp2AllComplete(boolean warm) throws Exception {
        int streams = 50;
        int events = 200;
        TlsServer server = serve(Offer.H2, exchange -> {
            exchange.status(200, "text/event-stream");
            for (int i = 0; i < events; i++) {
                exchange.write("data: " + exchange.requestBody() + "/" + i + "\n\n");
            }
        });
        SseClient client = client(server);
        // Warm: one request first, so that the connection is there for all the others to
        // share. Cold: all at once, as when an application starts its sessions together (the
        // client may open a few connections then, each with its own TLS handshake).
        if (warm) {
            try (SseConnection first = client.post(server.uri("/x"), AUTH, "\"warm\"", KEY)) {
                assertThat(drain(first)).hasSize(events);
            }
        }
        List<Future<List<String>>> results = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int s = 0; s < streams; s++) {
                String body = "\"s" + s + "\"";
                results.add(threads.submit(() -> {
                    try (SseConnection connection = client.post(server.uri("/x"), AUTH, body, KEY)) {
                        assertThat(connection.headers().get("x-protocol")).containsExactly("HTTP/2.0");
                        return drain(connection).stream().map(SseEvent::data).toList();
                    }
                }));
            }
        }
        for (int s = 0; s < streams; s++) {
            List<String> data = results.get(s).get();
            assertThat(data).hasSize(events);
            for (int i = 0; i < events; i++) {
                assertThat(data.get(i)).isEqualTo("\"s" + s + "\"/" + i);
            }
        }
        if (warm) {
            assertThat(server.connections()).hasSize(1);
        }
        assertThat(server.failures()).isEmpty();
    }

    /**
     * Many tasks at once, each closing its answers after {@code [DONE]} as the providers do,
     * keep their connections whichever way the body is delimited (a {@code Content-Length}, or
     * Jetty's own framing: chunked on HTTP/1.1, its last chunk sent when the answer returns):
     * HTTP/2 runs them all as streams of the one connection, HTTP/1.1 over TLS opens no more
     * connections than tasks (a task gives its connection back before its next request).
     * The watchdog never ticks, so no wait for a body's end runs out on a slow machine.
     */
    @ParameterizedTest
    @CsvSource({"H2, true", "H2, false", "HTTP_1_1, true", "HTTP_1_1, false"})
    void concurrentTasksKeepTheirConnections(Offer offer, boolean contentLength) throws Exception {
        int tasks = 16;
        int requests = 10;
        byte[] events = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            if (contentLength) {
                exchange.header("Content-Length", Integer.toString(events.length));
            }
            exchange.write(events);
        });
        SseClient client = client(server, new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true));
        // one request first: HTTP/2 then has its connection for all the others to share
        SseConnection first = client.post(server.uri("/x"), AUTH, "{}", KEY);
        assertThat(first.next().data()).isEqualTo("{\"choices\":[]}");
        assertThat(first.next().data()).isEqualTo("[DONE]");
        first.closeAfterEnd();
        List<Future<Integer>> results = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < tasks; t++) {
                results.add(threads.submit(() -> {
                    for (int r = 0; r < requests; r++) {
                        SseConnection connection = client.post(server.uri("/x"), AUTH, "{}", KEY);
                        assertThat(connection.headers().get("x-protocol")).containsExactly(protocol(offer));
                        assertThat(connection.next().data()).isEqualTo("{\"choices\":[]}");
                        assertThat(connection.next().data()).isEqualTo("[DONE]");
                        connection.closeAfterEnd();
                    }
                    return requests;
                }));
            }
        }
        for (Future<Integer> result : results) {
            assertThat(result.get()).isEqualTo(requests);
        }
        if (offer == Offer.H2) {
            assertThat(server.connections()).hasSize(1);
        } else {
            assertThat(server.connections().size()).isBetween(1, tasks);
        }
        assertThat(server.failures()).isEmpty();
    }

    /**
     * Issues 20 and 30 over TLS, on both protocols and both ways of ending a body: the server
     * sends the answer up to {@code [DONE]}, and its last bytes (with a {@code Content-Length})
     * or the body's end (Jetty's last chunk on HTTP/1.1, the end of the stream on HTTP/2) only
     * when the test says, long after the answer. The caller waits for that end (up to issue 30
     * it went on after 500 ms, and its next request opened another connection), the body is
     * not closed, and every request goes on the one connection, with no stream reset on HTTP/2
     * (the server's writes all succeed).
     */
    @ParameterizedTest
    @CsvSource({"H2, true", "H2, false", "HTTP_1_1, true", "HTTP_1_1, false"})
    void anEndThatComesLateIsWaitedForAndKeepsTheConnection(Offer offer, boolean contentLength) throws Exception {
        byte[] events = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] lastBytes = ": end\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.util.concurrent.Semaphore ends = new java.util.concurrent.Semaphore(0);
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            if (contentLength) {
                exchange.header("Content-Length", Integer.toString(events.length + lastBytes.length));
            }
            exchange.write(events);
            ends.acquire();
            if (contentLength) {
                exchange.write(lastBytes);
            }
        });
        resources.add(() -> ends.release(1000));      // first, should an assertion fail: Jetty can stop
        Watchdog byHand = manualWatchdog();
        SseClient client = client(server, byHand);
        for (int i = 0; i < 3; i++) {
            SseConnection connection = client.post(server.uri("/x"), AUTH, "{}", KEY);
            assertThat(connection.headers().get("x-protocol")).containsExactly(protocol(offer));
            assertThat(connection.next().data()).isEqualTo("{\"choices\":[]}");
            assertThat(connection.next().data()).isEqualTo("[DONE]");
            long began = System.nanoTime();
            Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
            while (closer.getState() != Thread.State.WAITING && closer.isAlive()) {
                Thread.onSpinWait();        // until it waits for the body's end
            }
            // long after the answer, within the idle timeout: the caller still waits for the end
            byHand.tick(began + HttpSettings.defaults().idleTimeout().toNanos() - Watchdog.TICK.toNanos());
            assertThat(closer.isAlive()).isTrue();
            BodyStream body = ((DefaultSseConnection) connection).body();
            assertThat(body.isDone()).isFalse();
            ends.release();                 // the end comes late, and the body takes it
            closer.join();
            assertThat(body.hasEnded()).isTrue();
        }
        assertThat(server.connections()).hasSize(1);
        assertThat(server.failures()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void aSlowReaderHoldsTheServerBackAndGetsEverything(Offer offer) throws Exception {
        // 48 MiB sent as fast as the server can, to a reader that first stops after one event
        // and then reads slowly: flow control (HTTP/2's windows, TCP's for HTTP/1.1) must hold
        // the server back, so that what is buffered between its writes and the reader stays
        // bounded, and the reader still gets it all, in order.
        int eventSize = 1024;
        int count = 48 * 1024;
        long total = (long) eventSize * count;
        String filler = "x".repeat(eventSize - "data: 00000\n\n".length());
        AtomicLong written = new AtomicLong();
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            for (int i = 0; i < count; i++) {
                exchange.write("data: " + String.format("%05d", i) + filler + "\n\n");
                written.addAndGet(eventSize);
            }
        });
        SseClient client = client(server);
        // HTTP/2: the JDK client's stream window, 16 MiB; HTTP/1.1: the sockets' buffers. Far
        // below the 48 MiB that a buffer without bound would let the server run ahead by.
        long bound = 24L << 20;
        try (SseConnection connection = client.post(server.uri("/x"), AUTH, "{}", KEY)) {
            assertThat(connection.next().data()).startsWith("00000");
            long read = eventSize;
            // The reader pauses until the server has stopped writing (held back, or done): the
            // wait's length decides nothing, only where the server stopped.
            long seen = -1;
            for (int still = 0; still < 20; ) {
                Thread.sleep(10);
                long now = written.get();
                still = now == seen ? still + 1 : 0;
                seen = now;
            }
            assertThat(written.get()).as("bytes the server wrote while the reader paused").isLessThan(total);
            long mostAhead = written.get() - read;
            for (int i = 1; i < count; i++) {
                SseEvent event = connection.next();
                assertThat(event.data()).startsWith(String.format("%05d", i)).hasSize(5 + filler.length());
                read += eventSize;
                mostAhead = Math.max(mostAhead, written.get() - read);
                if (i % 256 == 0) {
                    Thread.sleep(1);     // slower than the server can send
                }
            }
            assertThat(connection.next()).isNull();
            assertThat(mostAhead).as("bytes the server ran ahead of the reader").isLessThan(bound);
        }
        assertThat(server.failures()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void noByteWithinTheIdleTimeoutIsATimeoutAndTheConnectionServesTheNextRequest(Offer offer) throws Exception {
        TlsServer[] holder = new TlsServer[1];
        TlsServer server = serve(offer, exchange -> {
            exchange.status(200, "text/event-stream");
            exchange.write("data: first\n\n");
            if (exchange.requestBody().equals("\"stall\"")) {
                holder[0].stall();
            }
        });
        holder[0] = server;
        // driven by hand, told the time once the read waits (see SseClientTest)
        Watchdog watchdog = manualWatchdog();
        SseClient client = client(server, watchdog);
        URI uri = server.uri("/x");
        try (SseConnection connection = client.post(uri, AUTH, "\"stall\"", KEY)) {
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
            watchdog.tick(System.nanoTime() + Duration.ofSeconds(120).toNanos());
            ProviderException failure = outcome.get();
            assertThat(failure).isNotNull();
            assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
            assertThat(failure.getMessage()).isEqualTo("no data from " + uri + " for 120 s");
        }
        // Over HTTP/2 the stream given up on is reset, and the connection, which other sessions
        // share, goes on serving: the next request works.
        try (SseConnection next = client.post(uri, AUTH, "\"again\"", KEY)) {
            assertThat(drain(next)).containsExactly(new SseEvent("message", "first", null));
        }
        if (offer == Offer.H2) {
            assertThat(server.connections()).hasSize(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void noResponseWithinTheIdleTimeoutIsATimeoutAndTheConnectionServesTheNextRequest(Offer offer) throws Exception {
        TlsServer[] holder = new TlsServer[1];
        CountDownLatch arrived = new CountDownLatch(1);
        TlsServer server = serve(offer, exchange -> {
            if (exchange.requestBody().equals("\"stall\"")) {
                arrived.countDown();
                holder[0].stall();          // before any header
            } else {
                exchange.status(200, "text/event-stream").write("data: ok\n\n");
            }
        });
        holder[0] = server;
        Watchdog watchdog = manualWatchdog();
        SseClient client = client(server, watchdog);
        URI uri = server.uri("/x");
        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> outcome.complete(
                catchThrowableOfType(ProviderException.class, () -> client.post(uri, AUTH, "\"stall\"", KEY))));
        arrived.await();                    // handshake done, request sent: the wait is for the headers
        while (caller.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();
        }
        watchdog.tick(System.nanoTime() + Duration.ofSeconds(120).toNanos());
        ProviderException failure = outcome.get();
        assertThat(failure).isNotNull();
        assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(failure.getMessage()).isEqualTo("no response from " + uri + " within 120 s");
        assertThat(failure.getMessage()).doesNotContain(SECRET);
        try (SseConnection next = client.post(uri, AUTH, "\"again\"", KEY)) {
            assertThat(drain(next)).containsExactly(new SseEvent("message", "ok", null));
        }
        if (offer == Offer.H2) {
            assertThat(server.connections()).hasSize(1);
        }
    }

    /** How a reader blocked in next() is stopped from another thread. */
    enum Stop {
        CANCEL, INTERRUPT
    }

    @ParameterizedTest
    @EnumSource(Stop.class)
    void stoppingOneHttp2StreamLeavesItsConnectionServing(Stop stop) throws Exception {
        TlsServer[] holder = new TlsServer[1];
        CountDownLatch go = new CountDownLatch(1);
        TlsServer server = serve(Offer.H2, exchange -> {
            exchange.status(200, "text/event-stream");
            exchange.write("data: first\n\n");
            switch (exchange.requestBody()) {
                case "\"stall\"" -> holder[0].stall();
                case "\"wait\"" -> go.await();
                default -> { }
            }
            exchange.write("data: second\n\n");
        });
        holder[0] = server;
        SseClient client = client(server);
        URI uri = server.uri("/x");
        SseConnection cancelled = client.post(uri, AUTH, "\"stall\"", KEY);
        resources.add(cancelled);
        SseConnection other = client.post(uri, AUTH, "\"wait\"", KEY);
        resources.add(other);
        assertThat(cancelled.next().data()).isEqualTo("first");
        assertThat(other.next().data()).isEqualTo("first");

        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                cancelled.next();
                outcome.complete(null);
            } catch (ProviderException e) {
                outcome.complete(e);
            }
        });
        while (reader.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();     // until next() waits for the next byte
        }
        if (stop == Stop.CANCEL) {
            cancelled.cancel();      // on this thread: the client's tasks it sets off run here
        } else {
            reader.interrupt();      // the reader's own thread resets the stream
        }
        assertThat(outcome.get().kind()).isEqualTo(Kind.CANCELLED);

        // the connection was not torn down with the stream: the other stream on it goes on,
        // and a new stream goes over it
        go.countDown();
        assertThat(drain(other).stream().map(SseEvent::data)).containsExactly("second");
        try (SseConnection fresh = client.post(uri, AUTH, "\"go\"", KEY)) {
            assertThat(drain(fresh).stream().map(SseEvent::data)).containsExactly("first", "second");
        }
        assertThat(server.connections()).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void anErrorStatusGivesTheSameFailureOverEitherProtocol(Offer offer) throws Exception {
        TlsServer server = serve(offer, exchange -> {
            exchange.status(429, "application/json").header("Retry-After", "7");
            exchange.write("{\"error\": {\"message\": \"Rate limit reached for " + SECRET + "\", \"type\": \"requests\"}}");
        });
        SseClient client = client(server);
        URI uri = server.uri("/v1/chat/completions");
        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> client.post(uri, AUTH, "{}", KEY));
        assertThat(failure.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(failure.statusCode()).hasValue(429);
        assertThat(failure.retryAfter()).hasValue(Duration.ofSeconds(7));
        assertThat(failure.getMessage()).isEqualTo("HTTP 429 from " + uri + ": Rate limit reached for [REDACTED]");
    }

    @ParameterizedTest
    @EnumSource(Offer.class)
    void postJsonReturnsTheBody(Offer offer) throws Exception {
        TlsServer server = serve(offer, exchange -> exchange.status(200, "application/json")
                .write("{\"echo\":" + exchange.requestBody() + "}"));
        SseClient client = client(server);
        assertThat(client.postJson(server.uri("/v1/models"), AUTH, "{\"n\":1}", KEY)).isEqualTo("{\"echo\":{\"n\":1}}");
    }

    @Test
    void aServerTheClientDoesNotTrustIsAClearFailure() throws Exception {
        TlsServer server = serve(Offer.H2, exchange -> exchange.status(200, "text/event-stream").write("data: x\n\n"));
        // the JDK's default trust: a self-signed certificate is not in it
        SseClient client = new SseClient(HttpSettings.defaults());
        resources.add(client);
        URI uri = server.uri("/x");
        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> client.post(uri, AUTH, "{}", KEY));
        assertThat(failure).isNotNull();
        assertThat(failure.getMessage()).startsWith("cannot reach " + uri + ": ").contains("certificate")
                .endsWith("(its TLS certificate is not trusted here)").doesNotContain(SECRET);
        assertThat(failure.kind()).as("retrying brings the same certificate back").isEqualTo(ProviderException.Kind.CLIENT_ERROR);
        assertThat(failure.kind().retryable()).isFalse();
    }

    /** A watchdog without a thread: it expires deadlines only when the test calls tick(). */
    private static Watchdog manualWatchdog() {
        return new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
    }
}
