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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many requests at once on one client keep their connections, whichever way the server
 * delimits its bodies: {@code TASKS} tasks, each sending {@code REQUESTS} requests one after
 * another and closing each answer after its {@code [DONE]}, open at most {@code TASKS}
 * connections to a real server on 127.0.0.1, and the client closes none of them.
 *
 * <p>Why at most that many: a task holds a connection from its request until its body ended,
 * and gives it back to the pool before its next request; so no more connections are ever in
 * use than tasks, and a new one is opened only when none is free. Nothing here is timed: the
 * client's watchdog never ticks, so no time limit of the client runs out on a slow machine.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConnectionReuseTest {

    private static final ApiKey KEY = ApiKey.of("sk-reuse-test");
    private static final int TASKS = 16;
    private static final int REQUESTS = 25;

    /** How the server delimits a body. */
    enum Framing {
        /** {@code Content-Length}: the whole body in one write. */
        LENGTH,
        /** Chunked, the events in one write and the last chunk in a write of its own, after a flush. */
        CHUNKED
    }

    @ParameterizedTest
    @EnumSource(Framing.class)
    void concurrentTasksKeepTheirConnections(Framing framing) throws Exception {
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (KeepAliveServer server = new KeepAliveServer(framing);
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            assertThat(streamConcurrently(client, server.uri(), KEY, TASKS, REQUESTS)).isEqualTo(TASKS * REQUESTS);
            assertThat(server.requests).hasValue(TASKS * REQUESTS);
            assertThat(server.accepted.get()).isBetween(1, TASKS);
            assertThat(server.closedByClient).hasValue(0);
        }
    }

    /**
     * An HTTP/1.1 server with keep-alive on a raw socket: it counts the connections it
     * accepted and those the client closed (it closes none itself while the test runs).
     */
    /**
     * {@code tasks} virtual threads each stream {@code requests} answers from {@code uri} one
     * after the other, reading each to its {@code [DONE]} and letting its body end; the answers
     * read, once every thread ended without a failure (the first failure is thrown).
     */
    static int streamConcurrently(SseClient client, URI uri, ApiKey key, int tasks, int requests) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger answered = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int task = 0; task < tasks; task++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    for (int request = 0; request < requests; request++) {
                        SseConnection connection = client.post(uri, Map.of(), "{\"stream\":true}", key);
                        assertThat(connection.next().data()).isEqualTo("{\"choices\":[]}");
                        assertThat(connection.next().data()).isEqualTo("[DONE]");
                        connection.closeAfterEnd();
                        answered.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(failure.get()).isNull();
        return answered.get();
    }

    private static final class KeepAliveServer implements AutoCloseable {
        private static final byte[] EVENTS = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);

        final AtomicInteger accepted = new AtomicInteger();
        final AtomicInteger closedByClient = new AtomicInteger();
        final AtomicInteger requests = new AtomicInteger();
        private final Framing framing;
        private final ServerSocket server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());

        KeepAliveServer(Framing framing) throws IOException {
            this.framing = framing;
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        accepted.incrementAndGet();
                        Thread.ofVirtual().start(() -> serve(socket));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/chat/completions");
        }

        private void serve(Socket socket) {
            try (socket) {
                socket.setTcpNoDelay(true);
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                while (readRequest(in)) {
                    requests.incrementAndGet();
                    if (framing == Framing.LENGTH) {
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: "
                                + EVENTS.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(EVENTS);
                        out.flush();
                    } else {
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(EVENTS.length) + "\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.write(EVENTS);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                }
                closedByClient.incrementAndGet();
            } catch (IOException reset) {
                closedByClient.incrementAndGet();
            }
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
