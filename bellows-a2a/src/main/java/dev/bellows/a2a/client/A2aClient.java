package dev.bellows.a2a.client;

import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentInterface;
import dev.bellows.a2a.ListTaskPushNotificationConfigsResponse;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.ListTasksResponse;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A client of one remote A2A 1.0 agent: it reads the agent's card, picks the first interface the
 * card lists whose binding it speaks (JSON-RPC or HTTP+JSON, protocol version 1.x; or the binding
 * asked for), and sends every operation there with {@code A2A-Version: 1.0} and the headers it was
 * given (a token, say: they are sent, never shown in a message or exception).
 *
 * <pre>{@code
 * try (A2aClient client = A2aClient.builder("http://127.0.0.1:41241")
 *         .header("Authorization", "Bearer " + token).connect()) {
 *     try (TaskEvents events = client.stream(Message.of(Role.USER, List.of(Part.text("hello"))))) {
 *         for (StreamResponse event : events) { ... }
 *     }
 * }
 * }</pre>
 *
 * <p>Failures: an A2A error the agent answers with is a {@link dev.bellows.a2a.A2aException}
 * naming the {@link dev.bellows.a2a.A2aError}; a bad card, an unreachable agent, an HTTP error
 * status or an answer that is not A2A is an {@link A2aClientException}. Calls block the calling
 * thread; interrupting it cancels the call ({@link A2aClientException.Kind#CANCELLED}) but not the
 * remote task: {@link #cancelTask} does that. Redirects are not followed (they would carry the
 * headers elsewhere).
 *
 * <p>Thread-safe: one client serves concurrent calls. {@link #close()} releases its HTTP client.
 */
public final class A2aClient implements AutoCloseable {

    /** Where an agent's card is, under its base URL. */
    public static final String CARD_PATH = "/.well-known/agent-card.json";

    private final AgentCard card;
    private final AgentInterface endpoint;
    private final Http http;
    private final Binding binding;

    private A2aClient(AgentCard card, AgentInterface endpoint, Http http) {
        this.card = card;
        this.endpoint = endpoint;
        this.http = http;
        URI uri = URI.create(endpoint.url());
        this.binding = AgentInterface.JSONRPC.equals(endpoint.protocolBinding())
                ? new JsonRpcBinding(http, uri, endpoint.tenant())
                : new RestBinding(http, uri, endpoint.tenant());
    }

    /**
     * A client of the agent at {@code url}: its base URL (the card is read from
     * {@code /.well-known/agent-card.json} under it) or the card's own URL (one ending in {@code .json}).
     */
    public static Builder builder(String url) {
        return new Builder(url);
    }

    /** The URL of the card an agent's URL names: the URL itself when it ends in {@code .json}. */
    public static URI cardUrl(String url) {
        URI uri;
        try {
            uri = new URI(Objects.requireNonNull(url, "url").strip());
        } catch (java.net.URISyntaxException e) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, "not a URL");   // it may hold user:password
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, "not an http(s) URL");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.endsWith(".json")) {
            return uri;
        }
        return URI.create(scheme + "://" + uri.getRawAuthority() + path.replaceAll("/+$", "") + CARD_PATH);
    }

    /** Settings of a client; {@link #connect()} makes it. Not thread-safe. */
    public static final class Builder {
        private final String url;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String binding;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(60);

        private Builder(String url) {
            this.url = Objects.requireNonNull(url, "url");
        }

        /** A header sent with every request, the card's included ({@code Authorization: Bearer ...}). */
        public Builder header(String name, String value) {
            headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Headers sent with every request (copied). */
        public Builder headers(Map<String, String> more) {
            more.forEach(this::header);
            return this;
        }

        /**
         * The binding to use, {@link AgentInterface#JSONRPC} or {@link AgentInterface#HTTP_JSON},
         * when the card offers it; by default the first the card lists that the client speaks.
         */
        public Builder binding(String protocolBinding) {
            if (!AgentInterface.JSONRPC.equals(protocolBinding) && !AgentInterface.HTTP_JSON.equals(protocolBinding)) {
                throw new IllegalArgumentException("binding must be " + AgentInterface.JSONRPC + " or "
                        + AgentInterface.HTTP_JSON + ", not " + protocolBinding);
            }
            this.binding = protocolBinding;
            return this;
        }

        /** How long connecting may take (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout);
            return this;
        }

        /** How long a call other than a stream may take (default 60 s). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout);
            return this;
        }

        private static Duration positive(Duration d) {
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException("a timeout must be positive: " + d);
            }
            return d;
        }

        /**
         * Reads and checks the agent's card and picks its interface.
         *
         * @throws A2aClientException the card cannot be read or offers nothing this client speaks
         */
        public A2aClient connect() {
            URI cardUri = cardUrl(url);
            Http http = new Http(headers, connectTimeout, requestTimeout);
            try {
                JsonNode json;
                try {
                    json = http.json("GET", cardUri, null, null);
                } catch (A2aClientException e) {
                    throw new A2aClientException(e.kind() == A2aClientException.Kind.CANCELLED ? e.kind()
                            : A2aClientException.Kind.BAD_CARD, e.status(), "cannot read the agent card: " + e.getMessage(), e);
                }
                AgentCard card = readCard(json, cardUri);
                return new A2aClient(card, choose(card, binding, cardUri), http);
            } catch (RuntimeException e) {
                http.close();
                throw e;
            }
        }

        /** A client of the agent this card describes (already read), without reading it again. */
        public A2aClient connect(AgentCard card) {
            Http http = new Http(headers, connectTimeout, requestTimeout);
            try {
                return new A2aClient(card, choose(card, binding, cardUrl(url)), http);
            } catch (RuntimeException e) {
                http.close();
                throw e;
            }
        }
    }

    static AgentCard readCard(JsonNode json, URI cardUri) {
        String where = "the agent card at " + Http.display(cardUri);
        if (!json.isObject()) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, where + " is not a JSON object");
        }
        if (!json.path("name").isString() || json.path("name").asString().isBlank()) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, where + " has no \"name\"");
        }
        if (!json.path("supportedInterfaces").isArray() || json.path("supportedInterfaces").isEmpty()) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, where + " lists no \"supportedInterfaces\""
                    + (json.has("url") ? " (it looks like an A2A 0.3 card: Bellows speaks A2A 1.0)" : ""));
        }
        try {
            return Http.JSON.treeToValue(json, AgentCard.class);
        } catch (tools.jackson.core.JacksonException | IllegalArgumentException e) {
            throw new A2aClientException(A2aClientException.Kind.BAD_CARD, where + " is not an A2A 1.0 agent card: "
                    + Http.oneLine(e instanceof tools.jackson.core.JacksonException j ? j.getOriginalMessage()
                    : String.valueOf(e.getMessage())));
        }
    }

    /** The first interface of the card that the client speaks (of the binding asked for, if one is). */
    static AgentInterface choose(AgentCard card, String preferred, URI cardUri) {
        List<String> offered = new ArrayList<>();
        AgentInterface first = null;
        for (AgentInterface candidate : card.supportedInterfaces() == null ? List.<AgentInterface>of() : card.supportedInterfaces()) {
            if (candidate == null) {
                continue;
            }
            offered.add(candidate.protocolBinding() + " " + candidate.protocolVersion());
            boolean speaks = (AgentInterface.JSONRPC.equals(candidate.protocolBinding())
                    || AgentInterface.HTTP_JSON.equals(candidate.protocolBinding()))
                    && candidate.protocolVersion() != null && candidate.protocolVersion().matches("1(\\.\\d+)*")
                    && httpUrl(candidate.url());
            if (speaks && (preferred == null || preferred.equals(candidate.protocolBinding()))) {
                return candidate;
            }
            if (speaks && first == null) {
                first = candidate;
            }
        }
        if (first != null) {
            return first;   // the binding asked for is not offered: another the client speaks is
        }
        throw new A2aClientException(A2aClientException.Kind.BAD_CARD, "the agent card at " + Http.display(cardUri)
                + " offers no interface Bellows speaks (JSONRPC or HTTP+JSON, protocol version 1.x, an http(s) URL); it offers: "
                + (offered.isEmpty() ? "none" : String.join(", ", offered)));
    }

    private static boolean httpUrl(String url) {
        try {
            URI uri = new URI(url);
            return uri.getHost() != null && ("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()));
        } catch (java.net.URISyntaxException | NullPointerException e) {
            return false;
        }
    }

    static SendMessageRequest withTenant(SendMessageRequest request, String tenant) {
        return new SendMessageRequest(tenant == null || tenant.isEmpty() ? null : tenant, request.message(),
                request.configuration(), request.metadata());
    }

    /** The agent's card, as read. */
    public AgentCard card() {
        return card;
    }

    /** The interface the client talks to. */
    public AgentInterface endpoint() {
        return endpoint;
    }

    /** Whether the card declares streaming ({@link #stream} and {@link #subscribe} need it). */
    public boolean streams() {
        return card.capabilities() != null && Boolean.TRUE.equals(card.capabilities().streaming());
    }

    /** SendMessage: the task it started or continued, or the agent's direct message. */
    public SendMessageResponse send(Message message) {
        return send(new SendMessageRequest(null, message, null, null));
    }

    /** SendMessage with a configuration and metadata of the caller's. */
    public SendMessageResponse send(SendMessageRequest request) {
        return binding.send(request);
    }

    /** SendStreamingMessage: the task's events as they arrive. */
    public TaskEvents stream(Message message) {
        return stream(new SendMessageRequest(null, message, null, null));
    }

    /** SendStreamingMessage with a configuration and metadata of the caller's. */
    public TaskEvents stream(SendMessageRequest request) {
        return binding.stream(request);
    }

    /** GetTask, with the agent's default history. */
    public Task getTask(String id) {
        return binding.getTask(id, null);
    }

    /** GetTask with at most {@code historyLength} messages of history (0: none). */
    public Task getTask(String id, Integer historyLength) {
        return binding.getTask(id, historyLength);
    }

    /** ListTasks (its tenant is the interface's). */
    public ListTasksResponse listTasks(ListTasksRequest request) {
        return binding.listTasks(request);
    }

    /** CancelTask: the task as it stands after the request. */
    public Task cancelTask(String id) {
        return binding.cancelTask(id);
    }

    /** SubscribeToTask: the running task's current state, then its events as they arrive. */
    public TaskEvents subscribe(String taskId) {
        return binding.subscribe(taskId);
    }

    /** CreateTaskPushNotificationConfig ({@code taskId} and {@code url} set). */
    public TaskPushNotificationConfig createPushConfig(TaskPushNotificationConfig config) {
        return binding.createPushConfig(config);
    }

    /** GetTaskPushNotificationConfig. */
    public TaskPushNotificationConfig getPushConfig(String taskId, String id) {
        return binding.getPushConfig(taskId, id);
    }

    /** ListTaskPushNotificationConfigs. */
    public ListTaskPushNotificationConfigsResponse listPushConfigs(String taskId) {
        return binding.listPushConfigs(taskId);
    }

    /** DeleteTaskPushNotificationConfig. */
    public void deletePushConfig(String taskId, String id) {
        binding.deletePushConfig(taskId, id);
    }

    @Override
    public void close() {
        http.close();
    }

    @Override
    public String toString() {
        return "A2aClient[" + card.name() + " at " + endpoint.protocolBinding() + " " + Http.display(URI.create(endpoint.url())) + "]";
    }
}
