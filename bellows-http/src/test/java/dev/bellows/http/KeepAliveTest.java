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
 * {@link SseConnection#closeAfterEnd()} reads the body's end, so the next request goes on the
 * same connection; {@link SseConnection#close()} drops it.
 *
 * <p>Nothing here depends on timing: the server sends each body's end only when the test
 * says so (after the client is waiting for it, or after it closed), and the client's watchdog
 * is driven by hand and never ticks, so no drain is cut short by a slow machine.
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

    private static int connectionsFor(boolean afterEnd) throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DoneFirstServer server = new DoneFirstServer();
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            for (int i = 0; i < REQUESTS; i++) {
                SseConnection connection = client.post(server.uri(), Map.of(), "{}", KEY);
                assertThat(connection.next().data()).isEqualTo("{\"n\":" + i + "}");
                assertThat(connection.next().data()).isEqualTo("[DONE]");
                if (afterEnd) {
                    Thread closer = Thread.ofPlatform().start(connection::closeAfterEnd);
                    while (closer.getState() != Thread.State.WAITING && closer.isAlive()) {
                        Thread.onSpinWait();    // until it waits for the body's end
                    }
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
     * finish the response.
     */
    private static final class DoneFirstServer implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        private final Semaphore bodyEnds = new Semaphore(0);
        private final AtomicInteger served = new AtomicInteger();
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        DoneFirstServer() throws IOException {
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
                    bodyEnds.acquire();
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException | InterruptedException gone) {
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
