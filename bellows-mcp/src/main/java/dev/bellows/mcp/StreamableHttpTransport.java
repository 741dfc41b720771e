package dev.bellows.mcp;

import dev.bellows.http.SseEvent;
import dev.bellows.http.SseParser;
import dev.bellows.mcp.auth.Challenge;
import dev.bellows.mcp.auth.McpAuthorization;
import dev.bellows.mcp.auth.OAuthSecret;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The Streamable HTTP transport, with the resumption the SDK's own transport lacks: when the
 * server ends a request's event stream before the response arrived (it may, to shed
 * connections), the client waits the {@code retry} time the server gave and reconnects with a
 * GET carrying the session id and {@code Last-Event-ID}, and the response arrives on the new
 * stream. The SDK's client session does the protocol over this transport; this class moves
 * messages (serialized and parsed by the SDK's mapper) over HTTP.
 *
 * <p>Every POST asks for JSON or an event stream; {@code Mcp-Session-Id} and
 * {@code MCP-Protocol-Version} are sent once known; the configured headers go on every request.
 * A standalone GET stream carries what the server sends outside requests
 * ({@code notifications/tools/list_changed}); servers that do not offer one (405) are fine.
 * Closing sends DELETE for the session.
 *
 * <p>Authorization (OAuth 2.1, see {@link McpAuthorization}) when the server has no static
 * {@code Authorization} header: each request to the endpoint carries the token held for it;
 * a 401, or a 403 {@code insufficient_scope}, hands the challenge to the authorization, which
 * obtains a token (refresh, then a flow), and the request is sent again, at most as often as
 * {@link McpAuthorization#MAX_AUTHORIZATIONS} allows; then it fails with the server's answer.
 * A request carrying a token never follows a redirect (the token would go elsewhere).
 *
 * <p>Every message is read in bounded memory, whatever the server sends: a JSON response body
 * or one event of a stream is read as it arrives with its texts cut (see
 * {@link BoundedLineReader}), and one longer than {@link McpServerConfig#maxMessageBytes()} is
 * not read on: the request it answers fails with an error naming the server and the limit,
 * the response (and its connection) is closed, the session stays. A body that is cut short or
 * is not a JSON-RPC message fails its request at once, saying so.
 *
 * <p>Blocking reads happen on virtual threads, one per open stream; so do authorization
 * flows. No lock is taken.
 */
final class StreamableHttpTransport implements McpClientTransport {

    /** The wait before reconnecting when the server gave no {@code retry}. */
    static final Duration DEFAULT_RETRY = Duration.ofSeconds(1);
    /** Reconnections of one stream before giving up on it. */
    static final int MAX_RECONNECTS = 5;

    private static final int ERROR_BODY_CHARS = 300;
    private static final byte[] LF = {'\n'};
    /**
     * Marks the error response that ends a request the transport could not complete (the
     * server's stream ended, a message too long): Failures quotes its message as it is, not as
     * an error the server answered with.
     */
    static final Map<String, String> TRANSPORT_FAILURE = Map.of("bellows", "transport");
    private static final System.Logger LOG = System.getLogger(StreamableHttpTransport.class.getName());
    private static final Executor VIRTUAL = command -> Thread.ofVirtual().name("mcp-auth").start(command);

    private final URI endpoint;
    private final Map<String, String> headers;
    /** The caller's headers for each request, asked for on the sending thread (a tool call's traceparent). */
    private final java.util.function.Supplier<Map<String, String>> requestHeaders;
    private final McpJsonMapper mapper;
    private final HttpClient http;
    /** The authorization of the server, or null when a static Authorization header is configured. */
    private final McpAuthorization authorization;
    /** For requests that carry a token: never follows a redirect. Made on first use. */
    private volatile HttpClient withToken;
    private final Duration connectTimeout;
    private final String serverName;
    private final int maxMessageBytes;
    private final Set<InputStream> openStreams = ConcurrentHashMap.newKeySet();
    private volatile Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;
    private volatile String sessionId;
    private volatile String protocolVersion;
    private volatile Object initializeId;
    private volatile boolean standaloneStarted;
    private volatile boolean closed;
    private volatile Consumer<Throwable> exceptionHandler = error -> { };

    StreamableHttpTransport(McpServerConfig.StreamableHttp config, McpJsonMapper mapper) {
        this(config, mapper, null);
    }

    StreamableHttpTransport(McpServerConfig.StreamableHttp config, McpJsonMapper mapper, McpAuthorization authorization) {
        this(config, mapper, authorization, Map::of);
    }

    StreamableHttpTransport(McpServerConfig.StreamableHttp config, McpJsonMapper mapper, McpAuthorization authorization,
                            java.util.function.Supplier<Map<String, String>> requestHeaders) {
        this.requestHeaders = requestHeaders;
        this.endpoint = config.url();
        this.headers = config.headers();
        this.mapper = mapper;
        this.serverName = config.name();
        this.maxMessageBytes = config.maxMessageBytes();
        this.authorization = authorization;
        this.connectTimeout = config.startupTimeout();
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.startupTimeout())
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
    }

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> this.handler = Objects.requireNonNull(handler, "handler"));
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
        return Mono.defer(() -> Mono.fromFuture(post(message)));
    }

    private CompletableFuture<Void> post(JSONRPCMessage message) {
        if (closed) {
            return CompletableFuture.failedFuture(new McpTransportException("the connection is closed"));
        }
        String body;
        try {
            body = mapper.writeValueAsString(message);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new McpTransportException("cannot write the message", e));
        }
        if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initializeId = request.id();
        }
        return post(message, body, new McpAuthorization.Attempts());
    }

    /** One sending of the message; again after an authorization the server asked for. */
    private CompletableFuture<Void> post(JSONRPCMessage message, String body, McpAuthorization.Attempts attempts) {
        Object requestId = message instanceof McpSchema.JSONRPCRequest request ? request.id() : null;
        return token().thenCompose(token -> {
            HttpRequest.Builder builder = request(endpoint)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            token.ifPresent(value -> builder.setHeader("Authorization", value));
            HttpRequest request = builder.build();
            return client(token.isPresent()).sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                    .thenCompose(response -> {
                        int status = response.statusCode();
                        if (authorization != null && (status == 401 || status == 403)) {
                            Challenge challenge = Challenge.parse(status, response.headers().allValues("WWW-Authenticate"));
                            if (status == 401 || challenge.insufficientScope()) {
                                String refused = authorizationError(status, challenge, response.body());
                                return CompletableFuture.supplyAsync(() -> challenged(challenge, token.orElse(null), attempts),
                                        VIRTUAL).thenCompose(again -> again ? post(message, body, attempts)
                                        : CompletableFuture.failedFuture(new HttpStatusException(status, refused)));
                            }
                        }
                        answered(message, requestId, request, response);
                        return CompletableFuture.<Void>completedFuture(null);
                    });
        });
    }

    /**
     * The token for the next request: the one held, at once; when it is about to expire, the
     * refreshed one (on a virtual thread: refreshing is a request of its own).
     */
    private CompletableFuture<java.util.Optional<String>> token() {
        if (authorization == null) {
            return CompletableFuture.completedFuture(java.util.Optional.empty());
        }
        if (!authorization.refreshDue()) {
            return CompletableFuture.completedFuture(authorization.currentAuthorization(endpoint));
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return authorization.authorization(endpoint);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(new McpTransportException("interrupted while refreshing the token"));
            }
        }, VIRTUAL);
    }

    private boolean challenged(Challenge challenge, String sent, McpAuthorization.Attempts attempts) {
        try {
            return authorization.challenged(challenge, sent, attempts);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(new McpTransportException("interrupted while authorizing"));
        }
    }

    /** The client for a request: one that never follows redirects when it carries a token. */
    private HttpClient client(boolean carriesToken) {
        if (!carriesToken) {
            return http;
        }
        HttpClient client = withToken;
        if (client == null) {
            synchronized (this) {
                client = withToken;
                if (client == null) {
                    client = HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(connectTimeout)
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .build();
                    withToken = client;
                }
            }
        }
        return client;
    }

    /**
     * What a refused request fails with when no (further) authorization helps:
     * {@code HTTP 403 insufficient_scope from URL (scope mcp:admin): ...}.
     */
    private String authorizationError(int status, Challenge challenge, InputStream body) {
        String quoted = httpError(status, body);
        if (challenge.error() == null) {
            return quoted;
        }
        return "HTTP " + status + " " + challenge.error() + " from " + where()
                + (challenge.scopes().isEmpty() ? "" : " (scope " + String.join(" ", challenge.scopes()) + ")")
                + (challenge.description() == null ? "" : ": " + OAuthSecret.redact(Failures.oneLine(challenge.description())));
    }

    /** The server answered the POST with something other than a challenge: deliver it, or fail with it. */
    private void answered(JSONRPCMessage message, Object requestId, HttpRequest request, HttpResponse<InputStream> response) {
        rememberSession(response);
        int status = response.statusCode();
        if (status == 202 || status == 204) {
            closeQuietly(response.body());
            if (message instanceof McpSchema.JSONRPCNotification notification
                    && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method())) {
                startStandaloneStream();
            }
            return;
        }
        String sentSession = request.headers().firstValue("Mcp-Session-Id").orElse(null);
        if (status == 404 && sentSession != null) {
            // The server forgot the session (it restarted): this call fails, and the SDK, told
            // through the exception handler, starts a new session on the next one.
            closeQuietly(response.body());
            sessionId = null;
            standaloneStarted = false;
            McpTransportSessionNotFoundException expired = new McpTransportSessionNotFoundException(
                    "HTTP 404 from " + where() + ": the server no longer knows the session (it may have "
                            + "restarted); the next call starts a new one");
            exceptionHandler.accept(expired);
            throw expired;
        }
        if (status < 200 || status >= 300) {
            throw new HttpStatusException(status, httpError(status, response.body()));
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        if (type.startsWith("text/event-stream")) {
            InputStream stream = response.body();
            Thread.ofVirtual().name("mcp-" + serverName + "-sse").start(() -> readStream(stream, requestId));
            return;
        }
        String json;
        try (InputStream in = response.body()) {
            BoundedLineReader reader = reader(in, BoundedLineReader.Ends.STREAM);
            byte[] bytes = reader.readBytes();
            if (bytes == BoundedLineReader.TOO_LONG_BYTES) {
                // Closing the body unread closes its connection: the rest is never received.
                throw new McpTransportException(tooLong("a response", reader.tooLongWhy()) + "; the response was closed");
            }
            json = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new McpTransportException("the response of MCP server \"" + serverName + "\" broke off: "
                    + e.getMessage(), e);
        }
        if (!json.isBlank() && deliver(json) == null && requestId != null) {
            throw new McpTransportException("MCP server \"" + serverName + "\" answered with a body that is not a"
                    + " JSON-RPC message (cut short?): \"" + excerpt(json) + "\"");
        }
    }

    /** A reader of one server's messages, each bounded by its limit (see {@link McpServerConfig#maxMessageBytes()}). */
    private BoundedLineReader reader(InputStream in, BoundedLineReader.Ends ends) {
        return new BoundedLineReader(in, maxMessageBytes, BoundedLineReader.maxStringChars(maxMessageBytes),
                BoundedLineReader.maxSentBytes(maxMessageBytes), ends);
    }

    /** {@code MCP server "x" sent a response of more than 32 MiB ... (the server's limit, maxMessageMiB)}. */
    private String tooLong(String what, String why) {
        return "MCP server \"" + serverName + "\" sent " + what + " of " + why + " (the server's limit, maxMessageMiB)";
    }

    private static String excerpt(String text) {
        String line = Failures.oneLine(text);
        return line.length() > 80 ? line.substring(0, 80) + "…" : line;
    }

    /**
     * Reads one event stream to its end, then, while the request it answers is unanswered,
     * resumes it: waits the server's retry time and GETs the rest with {@code Last-Event-ID}.
     */
    private void readStream(InputStream first, Object requestId) {
        boolean[] answered = {requestId == null};
        SseParser parser = new SseParser(event -> {
            if (handle(event, requestId)) {
                answered[0] = true;
            }
        });
        InputStream stream = first;
        int reconnects = 0;
        while (true) {
            String tooLong = consume(stream, parser);
            if (closed || answered[0]) {
                return;
            }
            if (tooLong != null) {
                // Not resumed: the server would send the same event again.
                fail(requestId, tooLong + "; the response stream was closed");
                return;
            }
            String lastEventId = parser.lastEventId().orElse(null);
            if (lastEventId == null || reconnects >= MAX_RECONNECTS) {
                fail(requestId, "the server ended the response stream before answering"
                        + (lastEventId == null ? " and gave no event id to resume from" : ", " + reconnects
                        + " times"));
                return;
            }
            reconnects++;
            try {
                Thread.sleep(parser.retryMillis().orElse(DEFAULT_RETRY.toMillis()));
                stream = resume(lastEventId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (IOException | McpTransportException e) {
                if (!closed) {
                    fail(requestId, "resuming the response stream failed: " + Failures.oneLine(e.getMessage()));
                }
                return;
            }
        }
    }

    /** GET with the session and the last event id: the server replays what came after it. */
    private InputStream resume(String lastEventId) throws IOException, InterruptedException {
        HttpRequest request = streamRequest(lastEventId);
        return opened(client(request.headers().firstValue("Authorization").isPresent() && authorization != null)
                .send(request, HttpResponse.BodyHandlers.ofInputStream()));
    }

    private HttpRequest streamRequest(String lastEventId) {
        HttpRequest.Builder builder = request(endpoint).header("Accept", "text/event-stream").GET();
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId);
        }
        return builder.build();
    }

    /** The event stream of a GET's response; an error when the server answered otherwise. */
    private InputStream opened(HttpResponse<InputStream> response) {
        rememberSession(response);
        if (response.statusCode() != 200
                || !response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            throw new HttpStatusException(response.statusCode(), httpError(response.statusCode(), response.body()));
        }
        return response.body();
    }

    /**
     * The stream for what the server sends outside requests; reopened while the session lasts.
     * The first GET is handed to the HTTP client here, before the message that started it
     * counts as sent: the stream is asked for before any later request of the SDK's, instead
     * of whenever a new thread gets to run (a server may send on it what belongs to them).
     */
    private void startStandaloneStream() {
        if (standaloneStarted || closed) {
            return;
        }
        standaloneStarted = true;
        HttpRequest firstRequest = streamRequest(null);
        CompletableFuture<HttpResponse<InputStream>> first = client(carriesToken(firstRequest))
                .sendAsync(firstRequest, HttpResponse.BodyHandlers.ofInputStream());
        Thread.ofVirtual().name("mcp-" + serverName + "-get").start(() -> {
            SseParser parser = new SseParser(event -> handle(event, null));
            int failures = 0;
            CompletableFuture<HttpResponse<InputStream>> next = first;
            while (!closed && failures < MAX_RECONNECTS) {
                InputStream stream;
                try {
                    stream = opened(next.get());
                } catch (InterruptedException e) {
                    return;
                } catch (ExecutionException | McpTransportException e) {
                    return; // the server offers no such stream (405) or is gone: requests still work
                }
                long opened = System.nanoTime();
                String tooLong = consume(stream, parser);
                if (tooLong != null) {
                    // Reopened, the stream would replay it: requests still work without this stream.
                    LOG.log(System.Logger.Level.DEBUG, () -> tooLong + "; its stream of notifications was closed");
                    return;
                }
                failures = Duration.ofNanos(System.nanoTime() - opened).toSeconds() > 10 ? 0 : failures + 1;
                try {
                    Thread.sleep(parser.retryMillis().orElse(DEFAULT_RETRY.toMillis()));
                } catch (InterruptedException e) {
                    return;
                }
                if (closed) {
                    return;
                }
                HttpRequest again = streamRequest(parser.lastEventId().orElse(null));
                next = client(carriesToken(again)).sendAsync(again, HttpResponse.BodyHandlers.ofInputStream());
            }
        });
    }

    /**
     * Reads one event stream to its end, a line at a time in bounded memory; null then, or why
     * it stopped at an event too long (the stream closed, its connection with it).
     */
    private String consume(InputStream stream, SseParser parser) {
        openStreams.add(stream);
        BoundedLineReader lines = reader(stream, BoundedLineReader.Ends.CR_LF);
        long eventBytes = 0;
        try (stream) {
            byte[] line;
            while (!closed && (line = lines.readBytes()) != null) {
                if (line == BoundedLineReader.TOO_LONG_BYTES) {
                    return tooLong("an event", lines.tooLongWhy());
                }
                eventBytes = line.length == 0 ? 0 : eventBytes + line.length + 1;
                if (eventBytes > maxMessageBytes) {
                    return tooLong("an event", "more than " + BoundedLineReader.size(maxMessageBytes)
                            + " in its lines together");
                }
                parser.feed(line, 0, line.length);
                if (lines.lastLineEnded()) {
                    parser.feed(LF, 0, 1);
                }
            }
        } catch (IOException e) {
            // the stream broke off: treated like its end
        } finally {
            openStreams.remove(stream);
            parser.finish();
        }
        return null;
    }

    /** Delivers one event's message; true when it is the response to {@code requestId}. */
    private boolean handle(SseEvent event, Object requestId) {
        if (event.data().isBlank()) {
            return false; // a priming event: only its id and retry matter
        }
        JSONRPCMessage message = deliver(event.data());
        return requestId != null && message instanceof McpSchema.JSONRPCResponse response
                && Objects.equals(String.valueOf(response.id()), String.valueOf(requestId));
    }

    private JSONRPCMessage deliver(String json) {
        JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(mapper, json);
        } catch (IOException | RuntimeException e) {
            return null; // not a JSON-RPC message: nothing to deliver
        }
        if (message instanceof McpSchema.JSONRPCResponse response && initializeId != null
                && Objects.equals(String.valueOf(response.id()), String.valueOf(initializeId))
                && response.result() instanceof Map<?, ?> result
                && result.get("protocolVersion") instanceof String version) {
            protocolVersion = version;
        }
        var current = handler;
        if (current != null) {
            current.apply(Mono.just(message)).subscribe(ignored -> { }, error -> { });
        }
        return message;
    }

    /** Ends a request that can no longer be answered with an error response, as the server would. */
    private void fail(Object requestId, String reason) {
        var current = handler;
        if (requestId == null || current == null) {
            return;
        }
        McpSchema.JSONRPCResponse error = new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, requestId, null,
                new McpSchema.JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, reason, TRANSPORT_FAILURE));
        current.apply(Mono.just(error)).subscribe(ignored -> { }, e -> { });
    }

    private boolean carriesToken(HttpRequest request) {
        return authorization != null && request.headers().firstValue("Authorization").isPresent();
    }

    /** A request with the configured headers, the session, the protocol version, and the token held for this URL. */
    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
        requestHeaders.get().forEach(builder::setHeader);  // first: the configured ones and the protocol's win
        headers.forEach(builder::setHeader);
        if (authorization != null) {
            authorization.currentAuthorization(uri).ifPresent(value -> builder.setHeader("Authorization", value));
        }
        String session = sessionId;
        if (session != null) {
            builder.setHeader("Mcp-Session-Id", session);
        }
        String version = protocolVersion;
        if (version != null) {
            builder.setHeader("MCP-Protocol-Version", version);
        }
        return builder;
    }

    private void rememberSession(HttpResponse<?> response) {
        response.headers().firstValue("Mcp-Session-Id").ifPresent(id -> sessionId = id);
    }

    private String httpError(int status, InputStream body) {
        String text = "";
        try (InputStream in = body) {
            byte[] bytes = in.readNBytes(ERROR_BODY_CHARS * 4);
            // An HTML error page says little more than its text: keep that, without the markup.
            text = Failures.oneLine(new String(bytes, StandardCharsets.UTF_8)
                    .replaceAll("(?is)<(script|style)[^>]*>.*?</\\1>", " ")
                    .replaceAll("<[^>]*>", " ")).replaceAll("\\s{2,}", " ").strip();
        } catch (IOException e) {
            // no body to quote
        }
        if (text.length() > ERROR_BODY_CHARS) {
            text = text.substring(0, ERROR_BODY_CHARS) + "…";
        }
        return "HTTP " + status + " from " + where() + (text.isEmpty() ? "" : ": " + OAuthSecret.redact(text));
    }

    private String where() {
        return endpoint.getScheme() + "://" + endpoint.getRawAuthority() + endpoint.getRawPath();
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        this.exceptionHandler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public List<String> protocolVersions() {
        // Oldest first: the SDK offers the last one and accepts any of them from the server.
        return List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
                ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        String session = sessionId;
        if (session != null) {
            try {
                HttpRequest delete = request(endpoint).timeout(Duration.ofSeconds(2)).DELETE().build();
                client(carriesToken(delete)).send(delete, HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                // the server is gone: nothing to end
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        openStreams.forEach(StreamableHttpTransport::closeQuietly);
        http.shutdownNow();
        HttpClient tokenClient = withToken;
        if (tokenClient != null) {
            tokenClient.shutdownNow();
        }
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    /** The server answered with an HTTP error status; the message quotes it ("HTTP 401 from URL: ..."). */
    static final class HttpStatusException extends McpTransportException {

        private final int status;

        HttpStatusException(int status, String message) {
            super(message);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    private static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // closing a stream we no longer read
        }
    }
}
