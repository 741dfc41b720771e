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

    @Test
    void closingAfterTheEndKeepsTheConnection() throws Exception {
        assertThat(connectionsFor(true)).isEqualTo(1);
    }

    @Test
    void closingBeforeTheBodyEndsDropsIt() throws Exception {
        // The contrast that shows what the test above measures: a body closed before its end
        // costs its connection (the client may still reuse one it already had back in its pool).
        assertThat(connectionsFor(false)).isGreaterThan(1);
    }

    @Test
    void anEndSlowerThanTheWaitStillKeepsTheConnection() throws Exception {
        Watchdog byHand = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(0);
             SseClient client = new SseClient(HttpSettings.defaults(), byHand)) {
            for (int i = 0; i < REQUESTS; i++) {
                SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
                assertThat(connection.next().data()).isEqualTo("{\"n\":" + i + "}");
                assertThat(connection.next().data()).isEqualTo("[DONE]");
                Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
                awaitWaiting(closer);
                // The end does not come within the wait (here: the server holds it, as a slow
                // server or a starved machine would): the caller goes on without it...
                while (closer.isAlive()) {
                    byHand.tick(System.nanoTime() + DefaultSseConnection.DRAIN_WAIT.toNanos()
                            + Watchdog.TICK.toNanos());
                    Thread.onSpinWait();
                }
                BodyStream body = ((DefaultSseConnection) connection).body();
                assertThat(body.isDone()).isFalse();
                // ...and the body, not closed, ends when its end comes, returning the connection
                server.endBody();
                while (!body.isDone()) {
                    Thread.onSpinWait();
                }
                assertThat(body.hasEnded()).isTrue();
            }
            assertThat(server.accepted).hasValue(1);
            assertThat(server.closedByClient).hasValue(0);
        }
    }

    @Test
    void aBodyThatGoesOnLongAfterItsAnswerIsClosed() throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(DefaultSseConnection.DRAIN_LIMIT + 1024);
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
        try (DoneFirstServer server = new DoneFirstServer(0);
             SseClient client = new SseClient(settings, byHand)) {
            SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
            connection.next();
            assertThat(connection.next().data()).isEqualTo("[DONE]");
            long began = System.nanoTime();         // before the body's idle bound is set
            Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
            awaitWaiting(closer);
            while (closer.isAlive()) {
                byHand.tick(System.nanoTime() + DefaultSseConnection.DRAIN_WAIT.toNanos() + Watchdog.TICK.toNanos());
                Thread.onSpinWait();
            }
            BodyStream body = ((DefaultSseConnection) connection).body();
            byHand.tick(began + settings.idleTimeout().toNanos() - Watchdog.TICK.toNanos());
            assertThat(body.isDone()).isFalse();        // within the idle timeout: still waited for
            byHand.tick(System.nanoTime() + settings.idleTimeout().toNanos());
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

    private static int connectionsFor(boolean afterEnd) throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer(0);
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
     * finish the response; with a tail, that many bytes of further events come after
     * {@code [DONE]}, first.
     */
    private static final class DoneFirstServer implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        /** Connections the client closed (the server never does while the test runs). */
        final AtomicInteger closedByClient = new AtomicInteger();
        private final Semaphore bodyEnds = new Semaphore(0);
        private final AtomicInteger served = new AtomicInteger();
        private final int tail;
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        DoneFirstServer(int tail) throws IOException {
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
