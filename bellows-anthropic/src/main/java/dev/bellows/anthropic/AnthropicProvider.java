package dev.bellows.anthropic;

import dev.bellows.http.HttpSettings;
import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.SseClient;
import dev.bellows.http.SseConnection;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The Anthropic Messages API, streamed: {@code POST {base}/messages} with {@code "stream": true},
 * its Server-Sent Events decoded into typed frames: {@link dev.bellows.stream.StreamChunk.Text}
 * ({@code text_delta}), {@link dev.bellows.stream.StreamChunk.Reasoning} ({@code thinking_delta}),
 * {@link dev.bellows.stream.StreamChunk.ToolCallDelta} ({@code tool_use} blocks) and
 * {@link dev.bellows.stream.StreamChunk.ThinkingSignature}, with the response's id and model
 * first and its usage last. Media in messages go as {@code image} and {@code document} blocks.
 *
 * <pre>{@code
 * Provider anthropic = AnthropicProvider.builder()
 *         .apiKey(ApiKey.of(System.getenv("ANTHROPIC_API_KEY")))
 *         .build();
 * }</pre>
 *
 * <h2>The endpoint</h2>
 * The base URL may be given with or without the API version, as {@code ANTHROPIC_BASE_URL}
 * is written for Anthropic's own SDKs ({@code https://api.anthropic.com}) or like the
 * OpenAI-compatible base URLs ({@code https://api.anthropic.com/v1}): a base whose path ends
 * with {@code /v1} gets {@code /messages} appended, any other base {@code /v1/messages}
 * (trailing slashes ignored). So {@code https://gateway.example/anthropic} calls
 * {@code https://gateway.example/anthropic/v1/messages}. The default is
 * {@code https://api.anthropic.com/v1}.
 *
 * <h2>Headers</h2>
 * {@code x-api-key} carries the key, and is not sent without one; {@code anthropic-version}
 * (default {@value #DEFAULT_VERSION}) is always sent. {@link Builder#header} adds others, such
 * as {@code anthropic-beta}.
 *
 * <h2>The request</h2>
 * The package-private {@code AnthropicRequests} documents how a {@link ChatRequest} becomes
 * the JSON body: system messages go to the top-level {@code system}, consecutive messages of
 * one role are merged, {@code max_tokens} falls back to {@link Builder#defaultMaxTokens}, and
 * a conversation that starts with an assistant message is refused before anything is sent.
 * The body is written straight to bytes; the {@code system} text and the {@code tools}, the
 * same on every call of an agent's run, are encoded once and sent from that cache.
 * {@link Builder#promptCaching} marks both for Anthropic's prompt cache.
 *
 * <h2>Failures</h2>
 * Non-2xx answers fail in {@link #stream} with Anthropic's own message, classified by status
 * (429 rate limited, 408/409/5xx and 529 {@code overloaded_error} server errors, other 4xx
 * client errors). The package-private {@code AnthropicStream} documents the events and the
 * failures while the answer streams (an {@code error} event, a stream ending before
 * {@code message_stop}, malformed JSON). No message, and no {@code toString}, ever contains
 * the API key.
 *
 * <p>Thread-safe: one provider serves any number of concurrent streams.
 */
public final class AnthropicProvider implements Provider {

    /** Anthropic's public endpoint, version included. */
    public static final String DEFAULT_BASE_URL = "https://api.anthropic.com/v1";
    /** The {@code anthropic-version} header sent unless another one is chosen. */
    public static final String DEFAULT_VERSION = "2023-06-01";
    /** {@code max_tokens} for requests that do not set {@link ChatRequest#maxTokens()}. */
    public static final int DEFAULT_MAX_TOKENS = 4096;
    /** The smallest thinking budget the API accepts. */
    public static final int MIN_THINKING_BUDGET = 1024;

    /** Headers the provider sets itself; {@link Builder#header} refuses them. */
    private static final Set<String> RESERVED_HEADERS =
            Set.of("x-api-key", "anthropic-version", "content-type", "accept");

    private final URI endpoint;
    private final ApiKey apiKey;
    private final String anthropicVersion;
    private final Map<String, String> extraHeaders;
    private final Integer thinkingBudget;
    private final int defaultMaxTokens;
    private final boolean promptCaching;
    private final SseClient client;
    private final AnthropicRequests requests;
    /** The request headers, the same for every request: built once (never printed). */
    private final Map<String, String> requestHeaders;

    private AnthropicProvider(Builder builder) {
        this.endpoint = messagesEndpoint(builder.baseUrl);
        this.apiKey = builder.apiKey;
        this.anthropicVersion = builder.anthropicVersion;
        this.extraHeaders = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
        this.thinkingBudget = builder.thinkingBudget;
        this.defaultMaxTokens = builder.defaultMaxTokens;
        this.promptCaching = builder.promptCaching;
        if (thinkingBudget != null && thinkingBudget >= defaultMaxTokens) {
            throw new IllegalArgumentException("the thinking budget (" + thinkingBudget
                    + " tokens) must be below defaultMaxTokens (" + defaultMaxTokens
                    + "): the API counts thinking into max_tokens; raise defaultMaxTokens");
        }
        this.client = new SseClient(builder.httpSettings);
        this.requests = new AnthropicRequests(defaultMaxTokens, thinkingBudget, promptCaching);
        this.requestHeaders = Collections.unmodifiableMap(headers());
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "anthropic";
    }

    /** The URL every request is POSTed to ({@code .../v1/messages}). */
    public URI endpoint() {
        return endpoint;
    }

    /** {@link #endpoint()}: where every request goes. */
    @Override
    public java.util.Optional<URI> apiEndpoint() {
        return java.util.Optional.of(endpoint);
    }

    @Override
    public ChatStream stream(ChatRequest request) throws ProviderException {
        Objects.requireNonNull(request, "request");
        PartedBody body = requestBody(request);
        Map<String, String> headers = requestHeaders;
        if (!request.headers().isEmpty()) {     // this request's own (a traceparent); never the reserved ones
            headers = new LinkedHashMap<>(request.headers());
            headers.putAll(requestHeaders);
        }
        SseConnection connection = client.post(endpoint, headers, body.publisher(), apiKey);
        return new AnthropicStream(connection, endpoint, apiKey);
    }

    /** The JSON body for a request (see {@code AnthropicRequests}). */
    PartedBody requestBody(ChatRequest request) throws ProviderException {
        return requests.write(request);
    }

    private Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>(extraHeaders);
        headers.put("anthropic-version", anthropicVersion);
        if (apiKey != null) {
            headers.put("x-api-key", apiKey.reveal());
        }
        return headers;
    }

    @Override
    public void close() {
        client.close();
    }

    /** The endpoint, version, settings and header names; never the key or header values. */
    @Override
    public String toString() {
        return "AnthropicProvider[endpoint=" + AnthropicStream.display(endpoint)
                + ", apiKey=" + (apiKey == null ? "none" : "[REDACTED]")
                + ", anthropicVersion=" + anthropicVersion
                + ", defaultMaxTokens=" + defaultMaxTokens
                + (thinkingBudget == null ? "" : ", thinkingBudget=" + thinkingBudget)
                + (promptCaching ? ", promptCaching=true" : "")
                + (extraHeaders.isEmpty() ? "" : ", headers=" + extraHeaders.keySet())
                + ", " + client.settings() + "]";
    }

    /** {@code {base}/messages} when the base ends with {@code /v1}, else {@code {base}/v1/messages}. */
    static URI messagesEndpoint(String baseUrl) {
        URI base;
        try {
            base = new URI(baseUrl.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the base URL is not a valid URL (expected e.g. "
                    + DEFAULT_BASE_URL + ")");
        }
        String scheme = base.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || base.getHost() == null) {
            throw new IllegalArgumentException("the base URL must be an http:// or https:// URL with a host, e.g. "
                    + DEFAULT_BASE_URL);
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null) {
            throw new IllegalArgumentException("the base URL must not have a query or fragment: "
                    + "the provider appends /v1/messages to it (e.g. " + DEFAULT_BASE_URL + ")");
        }
        String path = base.getRawPath() == null ? "" : base.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String suffix = path.toLowerCase(Locale.ROOT).endsWith("/v1") ? "/messages" : "/v1/messages";
        return URI.create(base.getScheme() + "://" + base.getRawAuthority() + path + suffix);
    }

    /** Builds an {@link AnthropicProvider}; invalid values are refused with what to fix. */
    public static final class Builder {
        private String baseUrl = DEFAULT_BASE_URL;
        private ApiKey apiKey;
        private String anthropicVersion = DEFAULT_VERSION;
        private HttpSettings httpSettings = HttpSettings.defaults();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Integer thinkingBudget;
        private int defaultMaxTokens = DEFAULT_MAX_TOKENS;
        private boolean promptCaching;

        private Builder() {
        }

        /**
         * The API's base URL, with or without {@code /v1} (see the class comment); default
         * {@value AnthropicProvider#DEFAULT_BASE_URL}.
         */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
            messagesEndpoint(baseUrl);  // fail here, where the bad value was given
            return this;
        }

        /** The key sent as {@code x-api-key}; null (the default) sends no key header. */
        public Builder apiKey(ApiKey apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** The {@code anthropic-version} header; default {@value AnthropicProvider#DEFAULT_VERSION}. */
        public Builder anthropicVersion(String anthropicVersion) {
            Objects.requireNonNull(anthropicVersion, "anthropicVersion");
            if (anthropicVersion.isBlank()) {
                throw new IllegalArgumentException("anthropicVersion is empty (the API's is e.g. " + DEFAULT_VERSION + ")");
            }
            this.anthropicVersion = anthropicVersion.strip();
            return this;
        }

        /** Connect and idle timeouts; default {@link HttpSettings#defaults()}. */
        public Builder httpSettings(HttpSettings httpSettings) {
            this.httpSettings = Objects.requireNonNull(httpSettings, "httpSettings");
            return this;
        }

        /**
         * An extra request header, such as {@code anthropic-beta}; a second call with the same
         * name replaces the value. The headers the provider sets itself ({@code x-api-key},
         * {@code anthropic-version}, {@code content-type}, {@code accept}) are refused: use
         * {@link #apiKey} and {@link #anthropicVersion}.
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            String lower = name.strip().toLowerCase(Locale.ROOT);
            if (lower.isEmpty()) {
                throw new IllegalArgumentException("a header name is empty");
            }
            if (RESERVED_HEADERS.contains(lower)) {
                throw new IllegalArgumentException("the header " + lower + " is set by the provider itself"
                        + " (use apiKey(...) for the key and anthropicVersion(...) for the API version)");
            }
            headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(lower));
            headers.put(lower, value);
            return this;
        }

        /**
         * Extended thinking: sends {@code "thinking": {"type": "enabled", "budget_tokens": N}},
         * and the model's reasoning streams back as reasoning frames, each block ended by its
         * signature, and goes back unchanged on later turns. The API wants at
         * least {@value AnthropicProvider#MIN_THINKING_BUDGET} tokens, fewer than
         * {@code max_tokens} (which includes them).
         */
        public Builder thinking(int budgetTokens) {
            if (budgetTokens < MIN_THINKING_BUDGET) {
                throw new IllegalArgumentException("the thinking budget must be at least " + MIN_THINKING_BUDGET
                        + " tokens (the API's minimum), got " + budgetTokens);
            }
            this.thinkingBudget = budgetTokens;
            return this;
        }

        /** No extended thinking (the default). */
        public Builder noThinking() {
            this.thinkingBudget = null;
            return this;
        }

        /**
         * {@code max_tokens} for requests without {@link ChatRequest#maxTokens()}: the Messages
         * API requires the field. Default {@value AnthropicProvider#DEFAULT_MAX_TOKENS}.
         */
        public Builder defaultMaxTokens(int defaultMaxTokens) {
            if (defaultMaxTokens < 1) {
                throw new IllegalArgumentException("defaultMaxTokens must be at least 1, got " + defaultMaxTokens);
            }
            this.defaultMaxTokens = defaultMaxTokens;
            return this;
        }

        /**
         * Prompt caching: marks the last tool and the {@code system} text with
         * {@code "cache_control": {"type": "ephemeral"}}, so that the API keeps the request's
         * prefix up to each mark (the API orders it tools, then system, then messages) for a
         * while (5 minutes, renewed by each use) and later requests read it from its cache
         * instead of processing it again: faster, and billed at a fraction of the input price,
         * while writing the cache costs a little more than plain input, once. The
         * {@code system} field is then sent as one text block instead of a string. Off by
         * default. Worth it when the same system text and tools go out on many calls (an agent
         * loop) and are longer than the model's minimum cacheable prompt (1,024 to 4,096 tokens
         * depending on the model), below which the API ignores the mark. The usage reported
         * stays the API's {@code input_tokens}, which leaves out the tokens read from or
         * written to the cache.
         */
        public Builder promptCaching(boolean enabled) {
            this.promptCaching = enabled;
            return this;
        }

        /**
         * @throws IllegalArgumentException when the thinking budget is not below defaultMaxTokens
         */
        public AnthropicProvider build() {
            return new AnthropicProvider(this);
        }
    }
}
