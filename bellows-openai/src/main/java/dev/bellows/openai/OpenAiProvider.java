package dev.bellows.openai;

import dev.bellows.http.HttpSettings;
import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.SafeUris;
import dev.bellows.http.SseClient;
import dev.bellows.http.SseConnection;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.ToolSpec;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link Provider} for any OpenAI-compatible chat completions endpoint: OpenAI, Ollama,
 * vLLM, llama.cpp server, LM Studio, OpenRouter and the like.
 *
 * <pre>{@code
 * try (OpenAiProvider provider = OpenAiProvider.builder()
 *         .baseUrl("http://localhost:11434/v1")
 *         .build()) {
 *     try (ChatStream stream = provider.stream(request)) { ... }
 * }
 * }</pre>
 *
 * <p>{@link #stream(ChatRequest)} sends {@code POST {baseUrl}/chat/completions} with
 * {@code "stream": true} and decodes the Server-Sent Events incrementally:
 * {@code delta.content} becomes {@link dev.bellows.stream.StreamChunk.Text} frames,
 * {@code delta.reasoning_content} and {@code delta.reasoning}
 * {@link dev.bellows.stream.StreamChunk.Reasoning} frames, {@code delta.tool_calls}
 * {@link dev.bellows.stream.StreamChunk.ToolCallDelta} frames (requests that offer tools
 * natively), each as soon as its event arrives; the response's {@code id} and {@code model}
 * come first as a {@link dev.bellows.stream.StreamChunk.ResponseInfo}, its usage last as a
 * {@link dev.bellows.stream.StreamChunk.Usage}. {@code finish_reason} and {@code usage} (or
 * llama.cpp's {@code timings}) are reported by the stream once they arrived. Images in
 * messages go as {@code image_url} parts ({@link Builder#imageInput}). The differences between
 * servers are documented in {@code bellows-openai/DIALECTS.md}.
 *
 * <p>Failures are {@link ProviderException}s classified for retrying (wrap the provider in a
 * {@link dev.bellows.provider.RetryingProvider} to retry them). The API key, and the values of
 * the extra headers, never appear in a message or a {@code toString()}.
 *
 * <p>Thread-safe: streams may be opened from several threads at once. {@link #close()} releases
 * the HTTP client.
 */
public final class OpenAiProvider implements Provider {

    /** The base URL used when none is given and an API key is set: OpenAI itself. */
    public static final URI OPENAI_BASE_URL = URI.create("https://api.openai.com/v1");

    /** The base URL used when none is given and no API key is set: a local Ollama. */
    public static final URI OLLAMA_BASE_URL = URI.create("http://localhost:11434/v1");

    /** Which request field carries {@link ChatRequest#maxTokens()}. */
    public enum MaxTokensField {
        /**
         * {@code max_tokens}: understood by every OpenAI-compatible server (Ollama, vLLM,
         * llama.cpp, LM Studio, OpenRouter); deprecated by OpenAI and refused by its reasoning
         * models.
         */
        MAX_TOKENS("max_tokens"),
        /** {@code max_completion_tokens}: OpenAI's current name, required by its o-series and GPT-5 models. */
        MAX_COMPLETION_TOKENS("max_completion_tokens");

        private final String jsonName;

        MaxTokensField(String jsonName) {
            this.jsonName = jsonName;
        }

        /** The JSON field name. */
        public String jsonName() {
            return jsonName;
        }
    }


    /** Headers the provider sets itself, or the HTTP client does. */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "content-type", "accept",
            "content-length", "host", "connection", "transfer-encoding", "expect", "upgrade");

    private final URI baseUrl;
    private final URI endpoint;
    private final ApiKey apiKey;
    private final Map<String, String> extraHeaders;
    private final MaxTokensField maxTokensField;
    private final boolean includeUsage;
    private final boolean imageInput;
    private final HttpSettings httpSettings;
    private final SseClient client;
    private final Redactor redactor;
    private final RequestBodies bodies;

    private OpenAiProvider(Builder builder) {
        this.apiKey = builder.apiKey;
        this.baseUrl = builder.baseUrl != null ? builder.baseUrl : (apiKey != null ? OPENAI_BASE_URL : OLLAMA_BASE_URL);
        this.endpoint = endpointOf(baseUrl);
        this.extraHeaders = Map.copyOf(builder.headers);
        this.maxTokensField = builder.maxTokensField != null ? builder.maxTokensField : defaultMaxTokensField(baseUrl);
        this.includeUsage = builder.includeUsage;
        this.imageInput = builder.imageInput;
        this.httpSettings = builder.httpSettings;
        this.redactor = new Redactor(apiKey, extraHeaders.values());
        this.client = new SseClient(httpSettings);
        this.bodies = new RequestBodies(maxTokensField.jsonName(), includeUsage, imageInput);
    }

    /** A builder; every setting is optional. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "openai";
    }

    /** The base URL requests go to ({@code {baseUrl}/chat/completions}). */
    public URI baseUrl() {
        return baseUrl;
    }

    /** {@code {baseUrl}/chat/completions}: where every request goes. */
    @Override
    public java.util.Optional<URI> apiEndpoint() {
        return java.util.Optional.of(endpoint);
    }

    /** The field that carries the request's maximum number of tokens. */
    public MaxTokensField maxTokensField() {
        return maxTokensField;
    }

    /**
     * Sends the request and returns once the server answered with a 2xx status.
     *
     * @throws ProviderException for an error status (with the server's own message and
     *                           {@code Retry-After}), a connection failure, a time-out or a
     *                           cancellation
     */
    @Override
    public ChatStream stream(ChatRequest request) throws ProviderException {
        Objects.requireNonNull(request, "request");
        PartedBody body = requestBody(request);
        Map<String, String> headers = new LinkedHashMap<>(extraHeaders);
        headers.putAll(request.headers());      // this request's own (a traceparent); never the reserved ones
        if (apiKey != null) {
            headers.put("Authorization", "Bearer " + apiKey.reveal());
        }
        SseConnection connection;
        try {
            connection = client.post(endpoint, headers, body.publisher(), apiKey);
        } catch (ProviderException e) {
            throw redactor.redact(e);
        }
        return new OpenAiChatStream(connection, SafeUris.display(endpoint), redactor);
    }

    /** The JSON body for a request, fields in a fixed order; unset options are left out. */
    PartedBody requestBody(ChatRequest request) {
        return bodies.write(request);
    }

    /** OpenAI's own API gets {@code max_completion_tokens}; every other server {@code max_tokens}. */
    static MaxTokensField defaultMaxTokensField(URI baseUrl) {
        String host = baseUrl.getHost();
        return host != null && host.toLowerCase(Locale.ROOT).equals("api.openai.com")
                ? MaxTokensField.MAX_COMPLETION_TOKENS : MaxTokensField.MAX_TOKENS;
    }

    private static URI endpointOf(URI base) {
        String text = base.toString();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        return URI.create(text + "/chat/completions");
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "OpenAiProvider[" + describe(baseUrl, apiKey, extraHeaders, maxTokensField, includeUsage, imageInput,
                httpSettings) + "]";
    }

    private static String describe(URI baseUrl, ApiKey apiKey, Map<String, String> headers, MaxTokensField field,
                                   boolean includeUsage, boolean imageInput, HttpSettings settings) {
        return "baseUrl=" + (baseUrl == null ? "(default)" : SafeUris.display(baseUrl))
                + ", apiKey=" + (apiKey == null ? "none" : apiKey)
                + (headers.isEmpty() ? "" : ", headers=" + headers.keySet() + " (values redacted)")
                + ", maxTokensField=" + (field == null ? "(default)" : field.jsonName())
                + ", includeUsage=" + includeUsage
                + (imageInput ? "" : ", imageInput=false")
                + ", " + settings;
    }

    /**
     * Builds an {@link OpenAiProvider}. Without {@link #baseUrl}, the CLI spec's rule applies:
     * {@link #OPENAI_BASE_URL} when an API key is set, otherwise {@link #OLLAMA_BASE_URL}.
     */
    public static final class Builder {
        private URI baseUrl;
        private ApiKey apiKey;
        private HttpSettings httpSettings = HttpSettings.defaults();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private MaxTokensField maxTokensField;
        private boolean includeUsage = true;
        private boolean imageInput = true;

        private Builder() {
        }

        /**
         * The API's base URL, the part before {@code /chat/completions}
         * ({@code https://api.openai.com/v1}, {@code http://localhost:11434/v1}, ...).
         *
         * @throws IllegalArgumentException unless it is an absolute http(s) URL without query or fragment
         */
        public Builder baseUrl(URI baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            String scheme = baseUrl.getScheme();
            if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                    || baseUrl.getHost() == null) {
                throw new IllegalArgumentException("the base URL must be an absolute http:// or https:// URL, e.g. "
                        + "http://localhost:11434/v1, got " + SafeUris.display(baseUrl));
            }
            if (baseUrl.getRawQuery() != null || baseUrl.getRawFragment() != null) {
                throw new IllegalArgumentException("the base URL cannot have a query or fragment: give the part "
                        + "before /chat/completions, e.g. https://api.openai.com/v1");
            }
            this.baseUrl = baseUrl;
            return this;
        }

        /** @see #baseUrl(URI) */
        public Builder baseUrl(String baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            try {
                return baseUrl(new URI(baseUrl.strip()));
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("the base URL is not a valid URL: " + e.getReason());
            }
        }

        /** The key sent as {@code Authorization: Bearer ...}; without one no Authorization header is sent. */
        public Builder apiKey(ApiKey apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** Connect and idle time-outs ({@link HttpSettings#defaults()} unless set). */
        public Builder httpSettings(HttpSettings httpSettings) {
            this.httpSettings = Objects.requireNonNull(httpSettings, "httpSettings");
            return this;
        }

        /**
         * An extra request header, e.g. OpenRouter's {@code HTTP-Referer} and {@code X-Title}, or
         * a gateway's own key header. Values are treated as secrets: they never appear in a
         * {@code toString()} or an error message.
         *
         * @throws IllegalArgumentException for a header the provider sets itself
         *                                  ({@code Authorization}: use {@link #apiKey})
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isBlank() || !name.chars().allMatch(c -> c > 32 && c < 127 && c != ':')) {
                throw new IllegalArgumentException("invalid header name \"" + name + "\"");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (RESERVED_HEADERS.contains(lower)) {
                throw new IllegalArgumentException("the header " + name + " is set by the provider"
                        + (lower.equals("authorization") ? ": give the key with apiKey(...)" : ""));
            }
            headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
            headers.put(name, value);
            return this;
        }

        /**
         * Which field carries {@link ChatRequest#maxTokens()}. Default:
         * {@link MaxTokensField#MAX_COMPLETION_TOKENS} for {@code api.openai.com},
         * {@link MaxTokensField#MAX_TOKENS} for every other server.
         */
        public Builder maxTokensField(MaxTokensField field) {
            this.maxTokensField = Objects.requireNonNull(field, "field");
            return this;
        }

        /**
         * Whether to send {@code "stream_options": {"include_usage": true}} (default true), which
         * makes OpenAI, vLLM, Ollama and LM Studio report token usage in a last chunk. Turn it
         * off for a server that rejects unknown fields.
         */
        public Builder includeUsage(boolean includeUsage) {
            this.includeUsage = includeUsage;
            return this;
        }

        /**
         * Whether images (a tool's screenshots, say) are sent to the model, as {@code image_url}
         * parts of PNG, JPEG, GIF or WebP (default true). Turn it off for a model without vision,
         * which a server would refuse them for: the model is then told in words which images it
         * was not shown. Media of other types are never sent, and named the same way.
         */
        public Builder imageInput(boolean imageInput) {
            this.imageInput = imageInput;
            return this;
        }

        public OpenAiProvider build() {
            return new OpenAiProvider(this);
        }

        @Override
        public String toString() {
            return "OpenAiProvider.Builder[" + describe(baseUrl, apiKey, headers, maxTokensField, includeUsage,
                    imageInput, httpSettings) + "]";
        }
    }
}
