package dev.bellows.mcp.server;

import dev.bellows.json.internal.Jackson;
import dev.bellows.server.ServerExchange;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server side of MCP's Streamable HTTP transport over bellows-server's {@link ServerExchange}
 * (the SDK's own is a servlet): the SDK's sessions ({@link McpStreamableServerSession}) do the
 * protocol, this class only moves their messages. {@code POST} carries one JSON-RPC message: an
 * {@code initialize} is answered as JSON with the new session's {@code Mcp-Session-Id}, any
 * other request as a Server-Sent Events stream that carries the request's notifications
 * (progress), the server's requests (elicitation) and, last, its response; notifications and
 * responses get 202. {@code DELETE} ends a session. There is no stream for {@code GET} (405,
 * which the specification allows): nothing here is sent outside a request.
 *
 * <p>What the SDK's server does not do, this does: {@code notifications/cancelled} cancels the
 * call it names (and that call's response is not sent, as the specification asks), and so does
 * a stream the client left, found by a comment line written every {@link #HEARTBEAT_MILLIS} ms
 * while nothing else is. Each stream is written by the request's own thread alone, from a
 * queue, so no lock is held while writing.
 *
 * <p>Thread-safe.
 */
final class ExchangeTransport implements McpStreamableServerTransportProvider {

    private static final System.Logger LOG = System.getLogger(ExchangeTransport.class.getName());

    /** The transport context's key for the call's {@link Cancellation}. */
    static final String CANCELLATION = "dev.bellows.mcp.server.cancellation";

    static final long HEARTBEAT_MILLIS = 500;

    /**
     * The most sessions kept: a client that never ends its session (one that crashed) must not
     * grow the server forever. A new session past it ends the one used least recently that has
     * no call running; its client gets 404 on its next request and initializes again, as the
     * specification has it do.
     */
    static final int MAX_SESSIONS = 1024;

    private static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.US_ASCII);

    private final McpJsonMapper mapper;
    private final long maxRequestBytes;
    private final int maxSessions;
    private final Map<String, McpStreamableServerSession> sessions = new ConcurrentHashMap<>();
    /** When each session was last used (System.nanoTime), to end the least recent when there are too many. */
    private final Map<String, Long> lastUsed = new ConcurrentHashMap<>();
    /** The calls streaming now, by session id and request id, for notifications/cancelled. */
    private final Map<CallKey, Cancellation> calls = new ConcurrentHashMap<>();
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;

    private record CallKey(String session, String request) {
        static CallKey of(String session, Object requestId) {
            return new CallKey(session, String.valueOf(requestId));
        }
    }

    ExchangeTransport(McpJsonMapper mapper, long maxRequestBytes, int maxSessions) {
        this.mapper = mapper;
        this.maxRequestBytes = maxRequestBytes;
        this.maxSessions = maxSessions;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        // Nothing is sent outside a request (no GET stream): list changes are never announced,
        // since the agents offered are fixed when the server is built.
        return Mono.empty();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::closeAll);
    }

    /** Takes no new request (503); the calls running go on, and their cancels and answers are still taken. */
    void stopTaking() {
        closing = true;
    }

    /** Takes no new request; cancels every call and ends every session. */
    void closeAll() {
        closing = true;
        calls.values().forEach(Cancellation::cancel);
        sessions.values().forEach(McpStreamableServerSession::close);
        sessions.clear();
        lastUsed.clear();
    }

    /** How many calls are streaming now. */
    int runningCalls() {
        return calls.size();
    }

    void handle(ServerExchange exchange) throws IOException {
        switch (exchange.method()) {
            case "POST" -> post(exchange);
            case "DELETE" -> delete(exchange);
            default -> {
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("Allow", "POST, DELETE");
                send(exchange, 405, headers, errorBody(McpSchema.ErrorCodes.INVALID_REQUEST, exchange.method()
                        + " is not served here: POST a JSON-RPC message (this server opens no stream for GET),"
                        + " DELETE to end a session"));
            }
        }
    }

    private void post(ServerExchange exchange) throws IOException {
        if (exchange.contentLength() > maxRequestBytes) {
            error(exchange, 413, McpSchema.ErrorCodes.INVALID_REQUEST, "the request body is over " + maxRequestBytes
                    + " bytes");
            return;
        }
        byte[] body;
        try (InputStream in = exchange.body()) {
            body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxRequestBytes + 1));
        }
        if (body.length > maxRequestBytes) {
            error(exchange, 413, McpSchema.ErrorCodes.INVALID_REQUEST, "the request body is over " + maxRequestBytes
                    + " bytes");
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(mapper, new String(body, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            error(exchange, 400, McpSchema.ErrorCodes.PARSE_ERROR, "not one JSON-RPC message: "
                    + oneLine(e.getMessage()));
            return;
        }
        if (closing && message instanceof McpSchema.JSONRPCRequest) {
            // notifications and responses still reach the calls that are ending (a cancel, an answer)
            error(exchange, 503, McpSchema.ErrorCodes.INTERNAL_ERROR, "the server is stopping");
            return;
        }
        if (message instanceof McpSchema.JSONRPCRequest request && request.method().equals(McpSchema.METHOD_INITIALIZE)) {
            initialize(exchange, request);
            return;
        }
        String sessionId = exchange.header(HttpHeaders.MCP_SESSION_ID).orElse("");
        if (sessionId.isBlank()) {
            error(exchange, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "no Mcp-Session-Id header: initialize first");
            return;
        }
        McpStreamableServerSession session = sessions.get(sessionId);
        if (session == null) {
            error(exchange, 404, McpSchema.ErrorCodes.INVALID_REQUEST, "no session " + sessionId
                    + " (it ended, or the server restarted): initialize again");
            return;
        }
        lastUsed.put(sessionId, System.nanoTime());
        switch (message) {
            case McpSchema.JSONRPCRequest request -> stream(exchange, session, request);
            case McpSchema.JSONRPCNotification notification -> {
                if (notification.method().equals("notifications/cancelled")) {
                    cancelled(sessionId, notification);
                } else {
                    session.accept(notification).block();
                }
                send(exchange, 202, new LinkedHashMap<>(), new byte[0]);
            }
            case McpSchema.JSONRPCResponse response -> {
                try {
                    session.accept(response).block();
                } catch (RuntimeException e) {
                    error(exchange, 400, McpSchema.ErrorCodes.INVALID_REQUEST, oneLine(e.getMessage()));
                    return;
                }
                send(exchange, 202, new LinkedHashMap<>(), new byte[0]);
            }
            default -> error(exchange, 400, McpSchema.ErrorCodes.INVALID_REQUEST, "not a JSON-RPC request,"
                    + " notification or response");
        }
    }

    private void initialize(ServerExchange exchange, McpSchema.JSONRPCRequest request) throws IOException {
        McpSchema.InitializeRequest initialize;
        try {
            initialize = mapper.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() {
            });
        } catch (RuntimeException e) {
            error(exchange, 400, McpSchema.ErrorCodes.INVALID_PARAMS, "initialize: " + oneLine(e.getMessage()));
            return;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit init = sessionFactory.startSession(initialize);
        McpSchema.InitializeResult result = init.initResult().block();
        if (sessions.size() >= maxSessions) {
            endLeastRecent();
        }
        sessions.put(init.session().getId(), init.session());
        lastUsed.put(init.session().getId(), System.nanoTime());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put(HttpHeaders.MCP_SESSION_ID, init.session().getId());
        send(exchange, 200, headers, mapper.writeValueAsBytes(McpSchema.JSONRPCResponse.result(request.id(), result)));
    }

    /** Ends the session used least recently that has no call running (all have one: none ends). */
    private void endLeastRecent() {
        String oldest = null;
        long oldestUse = Long.MAX_VALUE;
        for (Map.Entry<String, Long> entry : lastUsed.entrySet()) {
            String id = entry.getKey();
            boolean busy = calls.keySet().stream().anyMatch(key -> key.session().equals(id));
            if (!busy && entry.getValue() - oldestUse < 0) {
                oldest = id;
                oldestUse = entry.getValue();
            }
        }
        if (oldest != null) {
            end(oldest);
        }
    }

    /** Ends a session: its calls cancelled, the SDK's session closed. */
    private boolean end(String sessionId) {
        McpStreamableServerSession session = sessions.remove(sessionId);
        lastUsed.remove(sessionId);
        if (session == null) {
            return false;
        }
        calls.forEach((key, call) -> {
            if (key.session().equals(sessionId)) {
                call.cancel();
            }
        });
        session.close();
        return true;
    }

    /** The client cancelled a request of its session: its call (if still running) is cancelled. */
    private void cancelled(String sessionId, McpSchema.JSONRPCNotification notification) {
        Object params = notification.params();
        if (params instanceof Map<?, ?> map && map.get("requestId") != null) {
            Cancellation call = calls.get(CallKey.of(sessionId, map.get("requestId")));
            if (call != null) {
                LOG.log(System.Logger.Level.DEBUG, () -> "request " + map.get("requestId") + " cancelled by the client");
                call.cancel();
            }
        }
    }

    /** A request of the session, answered as an event stream that ends with its response. */
    private void stream(ServerExchange exchange, McpStreamableServerSession session, McpSchema.JSONRPCRequest request)
            throws IOException {
        Cancellation cancellation = new Cancellation();
        CallKey key = CallKey.of(session.getId(), request.id());
        calls.put(key, cancellation);
        ResponseStream stream = new ResponseStream();
        try {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "text/event-stream");
            headers.put("Cache-Control", "no-cache");
            headers.put("X-Accel-Buffering", "no");
            OutputStream out = exchange.respond(200, headers);
            McpTransportContext context = McpTransportContext.create(Map.of(CANCELLATION, cancellation));
            session.responseStream(request, stream)
                    .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
                    .subscribe(null, error -> stream.close(), stream::close);
            write(out, stream, cancellation, request.id());
        } finally {
            calls.remove(key, cancellation);
            stream.close();
        }
    }

    /** Writes the stream's messages as they come, until it closes or the client has gone (which cancels the call). */
    private void write(OutputStream out, ResponseStream stream, Cancellation cancellation, Object requestId) {
        try {
            while (true) {
                Object next = stream.queue.poll(HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
                if (next == null) {
                    out.write(HEARTBEAT);
                } else if (next == ResponseStream.END) {
                    return;
                } else {
                    Outgoing outgoing = (Outgoing) next;
                    if (cancellation.isCancelled() && outgoing.message() instanceof McpSchema.JSONRPCResponse response
                            && Objects.equals(String.valueOf(response.id()), String.valueOf(requestId))) {
                        continue;   // a cancelled request gets no response (the client has stopped waiting)
                    }
                    out.write(event(outgoing));
                }
                out.flush();
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "the client left the stream of request " + requestId);
            cancellation.cancel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancellation.cancel();
        }
    }

    private byte[] event(Outgoing outgoing) throws IOException {
        StringBuilder event = new StringBuilder();
        if (outgoing.id() != null) {
            event.append("id: ").append(outgoing.id().replace('\n', ' ').replace('\r', ' ')).append('\n');
        }
        event.append("event: message\ndata: ").append(mapper.writeValueAsString(outgoing.message())).append("\n\n");
        return event.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void delete(ServerExchange exchange) throws IOException {
        String sessionId = exchange.header(HttpHeaders.MCP_SESSION_ID).orElse("");
        if (sessionId.isBlank() || !end(sessionId)) {
            error(exchange, 404, McpSchema.ErrorCodes.INVALID_REQUEST, sessionId.isBlank()
                    ? "no Mcp-Session-Id header" : "no session " + sessionId);
            return;
        }
        send(exchange, 204, new LinkedHashMap<>(), new byte[0]);
    }

    private void error(ServerExchange exchange, int status, int code, String message) throws IOException {
        send(exchange, status, new LinkedHashMap<>(), errorBody(code, message));
    }

    /** A JSON-RPC error answering no request in particular (id null, which the SDK's own records refuse). */
    private static byte[] errorBody(int code, String message) {
        ObjectNode body = Jackson.JSON.createObjectNode().put("jsonrpc", "2.0").putNull("id");
        body.putObject("error").put("code", code).put("message", message);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void send(ServerExchange exchange, int status, Map<String, String> headers, byte[] body)
            throws IOException {
        if (body.length > 0) {
            headers.put("Content-Type", "application/json");
        }
        headers.put("Content-Length", Integer.toString(body.length));
        try (OutputStream out = exchange.respond(status, headers)) {
            out.write(body);
        }
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replaceAll("\\s+", " ").strip();
    }

    private record Outgoing(McpSchema.JSONRPCMessage message, String id) {
    }

    /** One request's stream as the SDK's session sees it: what it sends is queued for the request's thread. */
    private final class ResponseStream implements McpStreamableServerTransport {

        static final Object END = new Object();

        final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private volatile boolean closed;

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromRunnable(() -> {
                if (!closed) {
                    queue.add(new Outgoing(message, messageId));
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return mapper.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(this::close);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                queue.add(END);
            }
        }
    }
}
