package dev.bellows.server.jetty;

import dev.bellows.server.AgentServer;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An {@link AgentServer} on Jetty 12 (its core API, no servlets): what {@code bellows serve}
 * runs. Each request is handled on a virtual thread of its own, so a thousand open streams
 * cost a thousand small stacks, not a thousand platform threads. A client that stops reading
 * cannot hold a stream forever: a write that makes no progress for the idle timeout (30 s)
 * fails, which ends the stream and cancels its run. A connection must send a request's head
 * (its request line and headers) within {@link #HEADER_TIMEOUT} of opening, or of its
 * previous answer once it begins the next head, else it is closed: one header line every few
 * seconds holds no connection for long.
 *
 * <pre>{@code
 * try (JettyAgentServer http = JettyAgentServer.start(AgentServer.builder(agent).build(), "127.0.0.1", 0)) {
 *     System.out.println("listening on " + http.uri());
 *     ...
 * }
 * }</pre>
 *
 * <p>Needs {@code org.eclipse.jetty:jetty-server} 12 on the class path (an optional dependency
 * of bellows-server).
 */
public final class JettyAgentServer implements AutoCloseable {

    /** How long a connection may make no progress, reading or writing, before it is closed. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

    /** How long a connection may take to send a request's head before it is closed. */
    public static final Duration HEADER_TIMEOUT = Duration.ofSeconds(15);

    private static final int ACCEPT_QUEUE = 4096;

    private final AgentServer handler;
    private final Server server;
    private final ServerConnector connector;

    private JettyAgentServer(AgentServer handler, Server server, ServerConnector connector) {
        this.handler = handler;
        this.server = server;
        this.connector = connector;
    }

    /**
     * Starts serving on {@code host} and {@code port} (0: a free port) and returns once
     * connections are accepted.
     *
     * @throws IOException when the address cannot be bound
     */
    public static JettyAgentServer start(AgentServer handler, String host, int port) throws IOException {
        return start(handler, host, port, IDLE_TIMEOUT);
    }

    /**
     * As {@link #start(AgentServer, String, int)}, closing a connection that makes no progress
     * for {@code idleTimeout} instead of 30 s (streams never idle that long: heartbeats).
     */
    public static JettyAgentServer start(AgentServer handler, String host, int port, Duration idleTimeout)
            throws IOException {
        return start(handler, host, port, idleTimeout, HEADER_TIMEOUT);
    }

    /**
     * As {@link #start(AgentServer, String, int, Duration)}, closing a connection that has not
     * sent a request's head within {@code headerTimeout} instead of 15 s.
     *
     * @throws IllegalArgumentException when the host is empty (give {@code 0.0.0.0} for every interface)
     */
    public static JettyAgentServer start(AgentServer handler, String host, int port, Duration idleTimeout,
                                         Duration headerTimeout) throws IOException {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("the host is empty: give an address or name to listen on"
                    + " (0.0.0.0 for every interface)");
        }
        if (headerTimeout.isNegative() || headerTimeout.isZero()) {
            throw new IllegalArgumentException("the header timeout must be positive, got " + headerTimeout);
        }
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("bellows-serve");
        threads.setDaemon(true);
        Server server = new Server(threads);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        config.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(idleTimeout.toMillis());
        // A thousand clients connecting at once: a short accept queue drops their handshakes,
        // and each drop costs the client a retransmission (or a reset connection).
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        server.addConnector(connector);
        HeaderDeadline deadline = new HeaderDeadline(connector.getScheduler(), headerTimeout);
        connector.addBean(deadline);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Connection connection = request.getConnectionMetaData().getConnection();
                deadline.headArrived(connection);
                // The agent server blocks for as long as a run streams: on a virtual thread of its own.
                Thread.ofVirtual().name("bellows-request").start(() -> {
                    try {
                        serve(handler, request, response, callback);
                    } finally {
                        deadline.answered(connection);
                    }
                });
                return true;
            }
        });
        server.setStopTimeout(5_000);
        try {
            server.start();
        } catch (IOException e) {
            stopQuietly(server);
            throw e;
        } catch (Exception e) {
            stopQuietly(server);
            throw new IOException("cannot start the HTTP server on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return new JettyAgentServer(handler, server, connector);
    }

    private static void serve(AgentServer handler, Request request, Response response, Callback callback) {
        JettyExchange exchange = new JettyExchange(request, response);
        try {
            handler.handle(exchange);
            exchange.finish();
            callback.succeeded();
        } catch (Throwable t) {
            callback.failed(t);
        }
    }

    /** The port it listens on (the one chosen when 0 was asked for). */
    public int port() {
        return connector.getLocalPort();
    }

    /** {@code http://HOST:PORT/}, with the host as given. */
    public URI uri() {
        String host = connector.getHost();
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + port() + "/");
    }

    /** The agent server it serves. */
    public AgentServer handler() {
        return handler;
    }

    /** Stops accepting connections and closes those left; call {@link AgentServer#shutdown} first to let runs end. */
    @Override
    public void close() {
        stopQuietly(server);
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception e) {
            // stopping what may not have started: nothing left to do
        }
    }

    /** One Jetty request as a {@link ServerExchange}. */
    private static final class JettyExchange implements ServerExchange {

        private final Request request;
        private final Response response;
        private OutputStream body;

        JettyExchange(Request request, Response response) {
            this.request = request;
            this.response = response;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String path() {
            String path = request.getHttpURI().getPath();
            return path == null || path.isEmpty() ? "/" : path;
        }

        @Override
        public Optional<String> query() {
            return Optional.ofNullable(request.getHttpURI().getQuery()).filter(query -> !query.isEmpty());
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(request.getHeaders().get(name));
        }

        @Override
        public Optional<InetSocketAddress> localAddress() {
            return request.getConnectionMetaData().getLocalSocketAddress() instanceof InetSocketAddress local
                    ? Optional.of(local) : Optional.empty();
        }

        @Override
        public InputStream body() {
            return Content.Source.asInputStream(request);
        }

        @Override
        public long contentLength() {
            return request.getLength();
        }

        @Override
        public OutputStream respond(int status, Map<String, String> headers) {
            if (body != null) {
                throw new IllegalStateException("the response has begun already");
            }
            response.setStatus(status);
            HttpFields.Mutable fields = response.getHeaders();
            headers.forEach(fields::put);
            body = Content.Sink.asOutputStream(response);
            return body;
        }

        /** Ends the response: its body closed (the last chunk sent), or an empty 500 if none began. */
        void finish() throws IOException {
            if (body == null) {
                respond(500, Map.of("Content-Length", "0"));
            }
            body.close();
        }
    }
}
