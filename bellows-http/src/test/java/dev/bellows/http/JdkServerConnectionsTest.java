package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.bellows.provider.ApiKey;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Against the JDK's own HTTP server as it comes (the server of issue 30's measurement: at most
 * 200 idle connections, Nagle's algorithm on, nothing raised), streamed exchanges one after
 * another on each of {@code tasks} threads use at most one connection per thread: the client
 * keeps no more connections than it has requests in flight, so a server's limit on idle
 * connections only bites when other clients fill it.
 *
 * <p>Connections are counted by the client's port, as the server sees it on each request: a
 * connection the client dropped or left out of its pool would make the next request come from
 * a new port. Nothing is timed: the client's watchdog never ticks, so no time limit of the
 * client runs out on a loaded machine (that a late end, such as a chunked body's last chunk
 * that Nagle's algorithm holds back here, is waited for is {@link KeepAliveTest}'s subject).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JdkServerConnectionsTest {

    private static final ApiKey KEY = ApiKey.of("sk-jdk-server-test");
    private static final byte[] EVENTS = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);
    private static final int REQUESTS = 20;

    @ParameterizedTest(name = "{0} thread(s), Content-Length {1}")
    @CsvSource({"1, true", "1, false", "16, true", "16, false"})
    void oneConnectionPerThreadAtMost(int tasks, boolean contentLength) throws Exception {
        assertThat(System.getProperty("sun.net.httpserver.maxIdleConnections"))
                .as("the JDK server's own defaults").isNull();
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (DefaultsServer server = new DefaultsServer(contentLength);
             SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            assertThat(ConnectionReuseTest.streamConcurrently(client, server.uri(), KEY, tasks, REQUESTS))
                    .isEqualTo(tasks * REQUESTS);
            assertThat(server.requests).hasValue(tasks * REQUESTS);
            assertThat(server.clientPorts).as("connections for " + tasks + " thread(s)").hasSizeBetween(1, tasks);
        }
    }

    /** The JDK server at its defaults, answering every request with the same two events. */
    private static final class DefaultsServer implements AutoCloseable {
        final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
        final AtomicInteger requests = new AtomicInteger();
        private final HttpServer server;
        private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

        DefaultsServer(boolean contentLength) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(executor);
            server.createContext("/", exchange -> {
                try (exchange) {
                    exchange.getRequestBody().readAllBytes();
                    clientPorts.add(exchange.getRemoteAddress().getPort());
                    requests.incrementAndGet();
                    exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                    // 0: chunked; the last chunk goes when the exchange closes, after the flush
                    exchange.sendResponseHeaders(200, contentLength ? EVENTS.length : 0);
                    OutputStream out = exchange.getResponseBody();
                    out.write(EVENTS);
                    out.flush();
                }
            });
            server.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
