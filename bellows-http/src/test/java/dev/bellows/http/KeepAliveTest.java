package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.ApiKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An answer that ends with {@code data: [DONE]} before its body does: closing it with
 * {@link SseConnection#closeAfterEnd()} waits for the body's end, so the next request goes on
 * the same connection; {@link SseConnection#close()} drops it. An end slower than the wait is
 * left to come on its own and still keeps the connection; only a body that goes on too long
 * after its answer, or never ends, is closed.
 *
 * <p>Nothing here depends on timing: the server sends each body's end only when the test
 * says so (after the client is waiting for it, or after it went on), and the client's
 * watchdog is driven by hand: it never ticks, or ticks at a time the test chooses.
 */
class KeepAliveTest {

    private static final ApiKey KEY = ApiKey.of("sk-keepalive-test");
    private static final int REQUESTS = 5;

    /** How the server delimits a body; either way its last bytes come after {@code [DONE]}. */
    enum Framing {
        /** {@code Content-Length}, the last bytes (a comment line) held back. */
        LENGTH,
        /** Chunked, the last chunk held back. */
        CHUNKED
    }

    @ParameterizedTest
    @EnumSource(Framing.class)
    void closingAfterTheEndKeepsTheConnection(Framing framing) throws Exception {
        assertThat(connectionsFor(framing, true)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Framing.class)
    void closingBeforeTheBodyEndsDropsIt(Framing framing) throws Exception {
        // The contrast that shows what the test above measures: a body closed before its end
        // costs its connection (the client may still reuse one it already had back in its pool).
        assertThat(connectionsFor(framing, false)).isGreaterThan(1);
    }

    /**
     * An end that comes long after the answer (a server slow to send its last bytes, or a
     * machine too busy to run the client in time) is waited for, then the next request goes on
     * the same connection. Issue 20 made such a late end keep its connection instead of closing
     * it; issue 30: the caller no longer goes on before it (it did after 500 ms), since its next
     * request then opened a second connection while the first was still busy, and the client
     * kept more connections than it had requests in flight. With the caller going on at the
     * short wait again, this test fails on every framing.
     */
    @ParameterizedTest
    @EnumSource(Framing.class)
    void anEndThatComesLateIsWaitedForAndKeepsTheConnection(Framing framing) throws Exception {
        Watchdog byHand = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        HttpSettings settings = HttpSettings.defaults();
        try (DoneFirstServer server = new DoneFirstServer(framing, 0);
             SseClient client = new SseClient(settings, byHand)) {
            for (int i = 0; i < REQUESTS; i++) {
                SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
                assertThat(connection.next().data()).isEqualTo("{\"n\":" + i + "}");
                assertThat(connection.next().data()).isEqualTo("[DONE]");
                long began = System.nanoTime();     // before the wait's bound is set
                Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
                awaitWaiting(closer);
                // The end does not come for a long while (the server holds it, as a slow server or
                // a starved machine would): the caller still waits, up to the idle timeout...
                byHand.tick(began + SHORT_WAIT_BEFORE.toNanos() + Watchdog.TICK.toNanos());
                byHand.tick(began + settings.idleTimeout().toNanos() - Watchdog.TICK.toNanos());
                assertThat(closer.isAlive()).as("the caller waits for the end").isTrue();
                BodyStream body = ((DefaultSseConnection) connection).body();
                assertThat(body.isDone()).isFalse();
                // ...and goes on once the end came, the connection back in the pool
                server.endBody();
                closer.join();
                assertThat(body.hasEnded()).isTrue();
            }
            assertThat(server.accepted).hasValue(1);
            assertThat(server.closedByClient).hasValue(0);
        }
    }

    /** How long the caller waited for a body's end before it went on without it, up to issue 30. */
    private static final java.time.Duration SHORT_WAIT_BEFORE = java.time.Duration.ofMillis(500);

    /** A cancel while the caller waits for the end lets it go on; the body still ends and keeps its connection. */
    @Test
    void aCancelEndsTheWaitForTheEnd() throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(Framing.CHUNKED, 0);
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
            connection.next();
            assertThat(connection.next().data()).isEqualTo("[DONE]");
            Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
            awaitWaiting(closer);
            connection.cancel();
            closer.join();
            BodyStream body = ((DefaultSseConnection) connection).body();
            assertThat(body.isDone()).isFalse();
            server.endBody();
            while (!body.isDone()) {
                Thread.onSpinWait();
            }
            assertThat(body.hasEnded()).isTrue();
            SseConnection next = client.post(server.uri(), Map.of(), "{}", KEY);
            assertThat(next.next().data()).isEqualTo("{\"n\":1}");
            next.close();
            assertThat(server.accepted).hasValue(1);
        }
    }

    @Test
    void aBodyThatGoesOnLongAfterItsAnswerIsClosed() throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(Framing.CHUNKED, DefaultSseConnection.DRAIN_LIMIT + 1024);
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
            assertThat(connection.next().data()).isEqualTo("{\"n\":0}");
            assertThat(connection.next().data()).isEqualTo("[DONE]");
            connection.closeAfterEnd();     // returns once more than the limit came
            BodyStream body = ((DefaultSseConnection) connection).body();
            assertThat(body.isDone()).isTrue();
            assertThat(body.hasEnded()).isFalse();
            server.endBody();
            SseConnection next = client.post(server.uri(), Map.of(), "{}", KEY);
            assertThat(next.next().data()).isEqualTo("{\"n\":1}");
            next.close();
            assertThat(server.accepted).hasValue(2);
        }
    }

    @Test
    void aBodyWhoseEndNeverComesIsClosedAtTheIdleTimeout() throws Exception {
        Watchdog byHand = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        HttpSettings settings = HttpSettings.defaults();
        try (DoneFirstServer server = new DoneFirstServer(Framing.CHUNKED, 0);
             SseClient client = new SseClient(settings, byHand)) {
            SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
            connection.next();
            assertThat(connection.next().data()).isEqualTo("[DONE]");
            long began = System.nanoTime();         // before the body's idle bound is set
            Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
            awaitWaiting(closer);
            BodyStream body = ((DefaultSseConnection) connection).body();
            byHand.tick(began + settings.idleTimeout().toNanos() - Watchdog.TICK.toNanos());
            assertThat(body.isDone()).isFalse();        // within the idle timeout: still waited for
            assertThat(closer.isAlive()).isTrue();
            byHand.tick(System.nanoTime() + settings.idleTimeout().toNanos());
            closer.join();
            assertThat(body.isDone()).isTrue();         // past it: a broken response, closed
            assertThat(body.hasEnded()).isFalse();
            server.endBody();           // too late: the server finds its connection closed
            while (server.closedByClient.get() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * The server lets a kept-alive connection go just as the next request goes out on it (it
     * reads the request and closes, as a server does whose idle timeout or cap on idle
     * connections struck at that moment): the request, never answered, is sent again at once
     * on a new connection instead of failing.
     */
    @Test
    void aRequestOnAConnectionTheServerJustClosedIsSentAgainAtOnce() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             SseClient client = new SseClient(HttpSettings.defaults(),
                     new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true))) {
            Thread.ofPlatform().daemon().start(() -> {
                for (int connection = 0; !server.isClosed(); connection++) {
                    try (Socket socket = server.accept()) {
                        accepted.incrementAndGet();
                        InputStream in = socket.getInputStream();
                        OutputStream out = socket.getOutputStream();
                        // the first connection answers once, then closes on reading the next request
                        for (int request = 0; DoneFirstServer.readRequest(in); request++) {
                            if (connection == 0 && request == 1) {
                                break;
                            }
                            byte[] events = "data: {}\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);
                            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                                    + events.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                            out.write(events);
                            out.flush();
                        }
                    } catch (IOException gone) {
                        // the client closed the connection
                    }
                }
            });
            URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/chat/completions");
            for (int i = 0; i < 2; i++) {
                SseConnection connection = client.post(uri, Map.of(), "{}", KEY);
                assertThat(connection.next().data()).isEqualTo("{}");
                assertThat(connection.next().data()).isEqualTo("[DONE]");
                connection.closeAfterEnd();
            }
            assertThat(accepted).hasValue(2);
        }
    }

    private static void awaitWaiting(Thread thread) {
        while (thread.getState() != Thread.State.WAITING && thread.isAlive()) {
            Thread.onSpinWait();        // until it waits for the body's end
        }
    }

    private static int connectionsFor(Framing framing, boolean afterEnd) throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(framing, 0);
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            for (int i = 0; i < REQUESTS; i++) {
                SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
                assertThat(connection.next().data()).isEqualTo("{\"n\":" + i + "}");
                assertThat(connection.next().data()).isEqualTo("[DONE]");
                if (afterEnd) {
                    Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
                    awaitWaiting(closer);
                    server.endBody();
                    closer.join();
                } else {
                    connection.close();
                    server.endBody();
                }
            }
            return server.accepted.get();
        }
    }

    /**
     * Serves each request on a connection with keep-alive: the events, then the body's end
     * once {@link #endBody()} is called, as servers do that flush {@code [DONE]} before they
     * finish the response; with a tail (chunked only), that many bytes of further events come
     * after {@code [DONE]}, first. With a {@code Content-Length}, the body's last bytes are an
     * SSE comment line, sent at its end.
     */
    private static final class DoneFirstServer implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        /** Connections the client closed (the server never does while the test runs). */
        final AtomicInteger closedByClient = new AtomicInteger();
        private final Semaphore bodyEnds = new Semaphore(0);
        private final AtomicInteger served = new AtomicInteger();
        private static final byte[] LAST_BYTES = ": end\n\n".getBytes(StandardCharsets.US_ASCII);
        private final Framing framing;
        private final int tail;
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        DoneFirstServer(Framing framing, int tail) throws IOException {
            if (framing == Framing.LENGTH && tail > 0) {
                throw new IllegalArgumentException("a tail is sent chunked");
            }
            this.framing = framing;
            this.tail = tail;
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        accepted.incrementAndGet();
                        Thread.ofPlatform().daemon().start(() -> serve(socket));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        /** Lets the body now being served end. */
        void endBody() {
            bodyEnds.release();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/chat/completions");
        }

        private void serve(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (readRequest(in)) {
                    int n = served.getAndIncrement();
                    if (framing == Framing.LENGTH) {
                        byte[] events = ("data: {\"n\":" + n + "}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                                + (events.length + LAST_BYTES.length) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(events);
                        out.flush();
                        bodyEnds.acquire();
                        out.write(LAST_BYTES);
                        out.flush();
                        continue;
                    }
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    chunk(out, "data: {\"n\":" + n + "}\n\ndata: [DONE]\n\n");
                    out.flush();
                    for (int sent = 0; sent < tail; sent += 1024) {
                        chunk(out, "data: " + "x".repeat(1016) + "\n\n");
                        out.flush();
                    }
                    bodyEnds.acquire();
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                closedByClient.incrementAndGet();
            } catch (IOException gone) {
                closedByClient.incrementAndGet();
            } catch (InterruptedException stopping) {
                // the client dropped the connection
            }
        }

        private static void chunk(OutputStream out, String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }

        /** Reads one request (head and body); false when the client closed the connection. */
        private static boolean readRequest(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return false;
                }
                head.append((char) b);
            }
            int length = 0;
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            in.readNBytes(length);
            return true;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
