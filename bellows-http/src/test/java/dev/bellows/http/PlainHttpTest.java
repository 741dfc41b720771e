package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.ApiKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 without TLS is the one combination the client does not speak: a plain
 * {@code http://} URL goes as HTTP/1.1, with no {@code h2c} upgrade asked for (some local
 * model servers mishandle it), even to a server that offers one. Proven against Jetty 12
 * offering HTTP/1.1 and h2c on one plain port: every request comes in as HTTP/1.1 without an
 * {@code Upgrade} header, and many tasks at once keep their connections whichever way the
 * body is delimited (a {@code Content-Length}, or Jetty's chunked framing).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PlainHttpTest {

    private static final ApiKey KEY = ApiKey.of("sk-plain-test");
    private static final byte[] EVENTS = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void plainHttpIsHttp11EvenWhereH2cIsOfferedAndKeepsItsConnections(boolean contentLength) throws Exception {
        int tasks = 16;
        int requests = 10;
        Set<String> connections = ConcurrentHashMap.newKeySet();
        Set<String> protocols = ConcurrentHashMap.newKeySet();
        Set<String> upgrades = ConcurrentHashMap.newKeySet();
        Server server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(config),
                new HTTP2CServerConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                connections.add(String.valueOf(request.getConnectionMetaData().getRemoteSocketAddress()));
                protocols.add(request.getConnectionMetaData().getProtocol());
                String upgrade = request.getHeaders().get(HttpHeader.UPGRADE);
                if (upgrade != null) {
                    upgrades.add(upgrade);
                }
                Content.Source.consumeAll(request);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
                if (contentLength) {
                    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, EVENTS.length);
                }
                var out = Content.Sink.asOutputStream(response);
                out.write(EVENTS);
                out.flush();            // sent now; without a length, the last chunk follows on return
                callback.succeeded();
                return true;
            }
        });
        server.start();
        Watchdog neverTicks = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
        try (SseClient client = new SseClient(HttpSettings.defaults(), neverTicks)) {
            URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/v1/chat/completions");
            List<Future<Integer>> results = new ArrayList<>();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int t = 0; t < tasks; t++) {
                    results.add(threads.submit(() -> {
                        for (int r = 0; r < requests; r++) {
                            SseConnection connection = client.post(uri, Map.of(), "{}", KEY);
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
        } finally {
            server.stop();
        }
        assertThat(protocols).containsExactly("HTTP/1.1");
        assertThat(upgrades).isEmpty();
        assertThat(connections.size()).isBetween(1, tasks);
    }
}
