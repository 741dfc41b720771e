package dev.bellows.a2a.server;

import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.AgentCapabilities;
import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentInterface;
import dev.bellows.server.Endpoint;
import dev.bellows.server.ServerExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * An agent served over A2A 1.0: the agent card at {@code GET /.well-known/agent-card.json}, the
 * JSON-RPC binding at {@code POST /a2a/jsonrpc} and the HTTP+JSON binding under
 * {@code /a2a/rest} ({@code POST /a2a/rest/message:send}, {@code GET /a2a/rest/tasks/{id}},
 * ...), streams as Server-Sent Events. It is an {@link Endpoint}: mount it on an
 * {@link dev.bellows.server.AgentServer} (beside an agent's AG-UI endpoint, or alone with
 * {@code AgentServer.builder()}), whose gate admits each request first (loopback {@code Host},
 * {@code Origin}, the bearer token for everything but the card).
 *
 * <pre>{@code
 * A2aServer a2a = A2aServer.builder(card, executor).pushNotifications(true).build();
 * AgentServer server = AgentServer.builder().mount(a2a).build();
 * try (JettyAgentServer http = JettyAgentServer.start(server, "127.0.0.1", 8080)) { ... }
 * }</pre>
 *
 * <p>Every request but the card's must send {@code A2A-Version: 1.0} (a header, or the
 * {@code A2A-Version} query parameter): none, or another version, is answered with
 * VersionNotSupportedError, as the specification has a request without one mean version 0.3.
 * Tasks belong to the caller that created them, told apart by their credentials (a digest of
 * the {@code Authorization} header): another caller's task id is not found. Request bodies over
 * {@link Builder#maxRequestBytes} get 413; a task keeps at most {@link Builder#maxHistory}
 * messages.
 *
 * <p>Thread-safe. {@link #shutdown} ends it.
 */
public final class A2aServer implements Endpoint {

    /** Where the agent card is served. */
    public static final String CARD_PATH = "/.well-known/agent-card.json";
    /** Where the JSON-RPC binding is served. */
    public static final String JSONRPC_PATH = "/a2a/jsonrpc";
    /** Under which the HTTP+JSON binding is served. */
    public static final String REST_PATH = "/a2a/rest";
    /** The service parameter that names the protocol version. */
    public static final String VERSION_HEADER = "A2A-Version";

    private final AgentCard card;
    private final TaskEngine engine;
    private final long maxRequestBytes;
    private final Duration heartbeat;
    private final JsonRpcBinding jsonRpc;
    private final RestBinding rest;
    /** When this server started, as {@code Last-Modified} of its card (which does not change while it runs). */
    private final String started = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
            java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).withNano(0));

    private A2aServer(Builder builder) {
        PushDelivery push = builder.push ? new PushDelivery(builder.pushAddresses) : null;
        this.engine = new TaskEngine(builder.executor, builder.store, push, builder.maxHistory, builder.maxPushConfigs,
                builder.cancelWait, new MediaTypes(builder.card.defaultInputModes()));
        AgentCapabilities given = builder.card.capabilities();
        AgentCapabilities capabilities = new AgentCapabilities(true, builder.push,
                given == null ? null : given.extensions(), null);
        AgentCard c = builder.card;
        this.card = new AgentCard(c.name(), c.description(), c.supportedInterfaces(), c.provider(), c.version(),
                c.documentationUrl(), capabilities, c.securitySchemes(), c.securityRequirements(), c.defaultInputModes(),
                c.defaultOutputModes(), c.skills(), c.signatures(), c.iconUrl());
        this.maxRequestBytes = builder.maxRequestBytes;
        this.heartbeat = builder.heartbeat;
        Streams streams = new Streams(heartbeat);
        this.jsonRpc = new JsonRpcBinding(engine, streams);
        this.rest = new RestBinding(engine, streams);
    }

    /** A server of the card (its interfaces filled in from each request's {@code Host} when it has none) and executor. */
    public static Builder builder(AgentCard card, A2aExecutor executor) {
        return new Builder(card, executor);
    }

    @Override
    public boolean serves(String path) {
        return path.equals(CARD_PATH) || rpc(path) || path.startsWith(REST_PATH + "/");
    }

    private static boolean rpc(String path) {
        return path.equals(JSONRPC_PATH) || path.equals(JSONRPC_PATH + "/");
    }

    /** A POST of another type than JSON gets ContentTypeNotSupportedError, in the binding's form (415). */
    @Override
    public boolean checksBodyType(String path) {
        return !path.equals(CARD_PATH);
    }

    /** Whether the request's body type is JSON ({@code application/json}, {@code application/a2a+json}, ...). */
    static boolean jsonBody(ServerExchange exchange) {
        String type = exchange.header("Content-Type").orElse("");
        String media = type.split(";", 2)[0].strip().toLowerCase(java.util.Locale.ROOT);
        return media.equals("application/json") || (media.startsWith("application/") && media.endsWith("+json"));
    }

    @Override
    public boolean open(String path) {
        return path.equals(CARD_PATH);
    }

    @Override
    public void handle(ServerExchange exchange) throws IOException {
        String path = exchange.path();
        boolean rpc = rpc(path);
        if (path.equals(CARD_PATH)) {
            if (!exchange.method().equals("GET") && !exchange.method().equals("HEAD")) {
                Http.send(exchange, 405, Map.of("Allow", "GET"), Http.problem(A2aError.UNSUPPORTED_OPERATION, 405,
                        "GET the agent card"));
                return;
            }
            byte[] json = Json.MAPPER.writeValueAsBytes(card(exchange));
            String etag = "\"" + digest(json) + "\"";
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Cache-Control", "max-age=300");
            headers.put("ETag", etag);
            headers.put("Last-Modified", started);
            if (exchange.header("If-None-Match").map(etag::equals).orElse(false)) {
                Http.send(exchange, 304, headers, new byte[0]);
            } else {
                Http.send(exchange, 200, headers, json);
            }
            return;
        }
        if (exchange.method().equals("POST") && !jsonBody(exchange)) {
            A2aException wrongType = new A2aException(A2aError.CONTENT_TYPE_NOT_SUPPORTED, "Content-Type "
                    + exchange.header("Content-Type").orElse("none") + ": send the body as application/json");
            Map<String, String> headers = Map.of("Connection", "close");
            Http.send(exchange, 415, headers, rpc ? JsonRpcBinding.errorBody(null, wrongType)
                    : Http.problem(A2aError.CONTENT_TYPE_NOT_SUPPORTED, 415, wrongType.getMessage()));
            return;
        }
        String principal = principal(exchange);
        A2aException versionError = versionError(exchange);
        byte[] body;
        try {
            body = exchange.method().equals("POST") ? read(exchange) : new byte[0];
        } catch (TooLarge e) {
            Map<String, String> headers = Map.of("Connection", "close");
            if (rpc) {
                Http.send(exchange, 413, headers, JsonRpcBinding.errorBody(null, new A2aException(A2aError.INVALID_REQUEST,
                        e.getMessage())));
            } else {
                Http.send(exchange, 413, headers, Http.problem(A2aError.INVALID_REQUEST, 413, e.getMessage()));
            }
            return;
        }
        if (rpc) {
            jsonRpc.handle(exchange, body, principal, versionError);
        } else {
            rest.handle(exchange, path.substring(REST_PATH.length()), body, principal, versionError);
        }
    }

    /** The card, its interfaces those of the server the request reached when the card names none. */
    AgentCard card(ServerExchange exchange) {
        if (card.supportedInterfaces() != null && !card.supportedInterfaces().isEmpty()) {
            return card;
        }
        String base = "http://" + exchange.header("Host").orElse("127.0.0.1");
        List<AgentInterface> interfaces = List.of(AgentInterface.of(base + JSONRPC_PATH, AgentInterface.JSONRPC),
                AgentInterface.of(base + REST_PATH, AgentInterface.HTTP_JSON));
        return new AgentCard(card.name(), card.description(), interfaces, card.provider(), card.version(),
                card.documentationUrl(), card.capabilities(), card.securitySchemes(), card.securityRequirements(),
                card.defaultInputModes(), card.defaultOutputModes(), card.skills(), card.signatures(), card.iconUrl());
    }

    /** The error for a request of a version this server does not speak (none means 0.3), or null. */
    static A2aException versionError(ServerExchange exchange) {
        String version = exchange.header(VERSION_HEADER).orElse(null);
        if (version == null || version.isBlank()) {
            version = Http.query(exchange).getOrDefault(VERSION_HEADER, "");
        }
        String given = version.strip();
        String[] parts = given.split("\\.");
        if (parts.length >= 2 && parts[0].equals("1") && parts[1].equals("0")) {
            return null;        // a patch number is not considered
        }
        return new A2aException(A2aError.VERSION_NOT_SUPPORTED, "A2A-Version " + (given.isEmpty()
                ? "not given, which means 0.3" : "\"" + given + "\"") + ": this agent speaks A2A 1.0; send A2A-Version: 1.0");
    }

    /** Who calls: a digest of the credentials sent (empty for none), so that callers' tasks stay apart. */
    static String principal(ServerExchange exchange) {
        String authorization = exchange.header("Authorization").orElse("");
        return authorization.isEmpty() ? "" : digest(authorization.getBytes(StandardCharsets.UTF_8));
    }

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    private static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    private byte[] read(ServerExchange exchange) throws IOException, TooLarge {
        String tooLarge = "the body is larger than this server takes (" + maxRequestBytes + " bytes)";
        if (exchange.contentLength() > maxRequestBytes) {
            throw new TooLarge(tooLarge);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try (InputStream in = exchange.body()) {
            byte[] buffer = new byte[8192];
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (body.size() + read > maxRequestBytes) {
                    throw new TooLarge(tooLarge);
                }
                body.write(buffer, 0, read);
            }
        }
        return body.toByteArray();
    }

    /**
     * Takes no new message, lets the tasks that run go on for {@code grace}, then cancels the
     * rest and waits for them to end.
     */
    public void shutdown(Duration grace) {
        engine.shutdown(grace);
    }

    /** How many tasks are being worked on now. */
    public int runningTasks() {
        return engine.runningTurns();
    }

    /** The settings of an {@link A2aServer}; the card and executor are required. */
    public static final class Builder {
        private final AgentCard card;
        private final A2aExecutor executor;
        private TaskStore store = TaskStore.inMemory();
        private boolean push;
        private Predicate<InetAddress> pushAddresses = address -> true;
        private long maxRequestBytes = 1024 * 1024;
        private int maxHistory = 200;
        private int maxPushConfigs = 10;
        private Duration heartbeat = Duration.ofSeconds(5);
        private Duration cancelWait = Duration.ofSeconds(5);

        private Builder(AgentCard card, A2aExecutor executor) {
            this.card = Objects.requireNonNull(card, "card");
            this.executor = Objects.requireNonNull(executor, "executor");
        }

        /** Where tasks are kept (default: in memory). */
        public Builder taskStore(TaskStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** Whether push notification configs are taken and webhooks called (default no: PushNotificationNotSupportedError). */
        public Builder pushNotifications(boolean push) {
            this.push = push;
            return this;
        }

        /**
         * Which resolved addresses a webhook may be delivered to, narrowing the default (https to
         * any address but link-local, unspecified, multicast and metadata ones; http to loopback only):
         * {@code InetAddress::isLoopbackAddress} keeps every delivery on this machine.
         */
        public Builder pushAddresses(Predicate<InetAddress> addresses) {
            this.pushAddresses = Objects.requireNonNull(addresses, "addresses");
            return this;
        }

        /** The largest request body taken (default 1 MiB); larger ones get 413. */
        public Builder maxRequestBytes(long maxRequestBytes) {
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be at least 1, got " + maxRequestBytes);
            }
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        /** The most messages a task's history keeps, the oldest dropped first (default 200). */
        public Builder maxHistory(int maxHistory) {
            if (maxHistory < 1) {
                throw new IllegalArgumentException("maxHistory must be at least 1, got " + maxHistory);
            }
            this.maxHistory = maxHistory;
            return this;
        }

        /** How long a stream may go without a write before a heartbeat comment is sent (default 5 s). */
        public Builder heartbeat(Duration heartbeat) {
            if (heartbeat.isNegative() || heartbeat.isZero()) {
                throw new IllegalArgumentException("the heartbeat interval must be positive, got " + heartbeat);
            }
            this.heartbeat = heartbeat;
            return this;
        }

        public A2aServer build() {
            return new A2aServer(this);
        }
    }
}
