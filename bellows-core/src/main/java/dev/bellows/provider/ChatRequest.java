package dev.bellows.provider;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What to ask a model: the model's name, the conversation, and optional sampling settings.
 * Unset options are not sent, so the provider's own defaults apply. Extra HTTP headers for
 * this request alone ({@link #headers()}: a tracing {@code traceparent}, say) are sent by the
 * providers with their own; their values never appear in a {@code toString()}, a log line or
 * an error message.
 */
public final class ChatRequest {

    /** Headers a provider or the HTTP client sets itself, which a request cannot set. */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "x-api-key", "anthropic-version",
            "content-type", "accept", "content-length", "host", "connection", "transfer-encoding", "expect", "upgrade");

    private final String model;
    private final List<Message> messages;
    private final Double temperature;
    private final Double topP;
    private final Integer maxTokens;
    private final List<String> stopSequences;
    private final List<ToolSpec> tools;
    private final Map<String, String> headers;

    private ChatRequest(Builder builder) {
        if (builder.model == null || builder.model.isBlank()) {
            throw new IllegalArgumentException("a model name is needed (e.g. gpt-4o-mini, llama3.1, claude-sonnet-4-5)");
        }
        if (builder.messages.isEmpty()) {
            throw new IllegalArgumentException("at least one message is needed");
        }
        if (builder.temperature != null && (builder.temperature < 0 || builder.temperature > 2)) {
            throw new IllegalArgumentException("temperature must be between 0 and 2, got " + builder.temperature);
        }
        if (builder.topP != null && (builder.topP <= 0 || builder.topP > 1)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + builder.topP);
        }
        if (builder.maxTokens != null && builder.maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, got " + builder.maxTokens);
        }
        this.model = builder.model;
        this.messages = List.copyOf(builder.messages);
        this.temperature = builder.temperature;
        this.topP = builder.topP;
        this.maxTokens = builder.maxTokens;
        this.stopSequences = List.copyOf(builder.stopSequences);
        this.tools = List.copyOf(builder.tools);
        this.headers = builder.headers.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
        if (hasDuplicateName(tools)) {
            throw new IllegalArgumentException("two tools offered natively have the same name");
        }
    }

    /** A request is built for every model call of a run: no set for the usual handful of tools. */
    private static boolean hasDuplicateName(List<ToolSpec> tools) {
        if (tools.size() > 16) {
            return tools.stream().map(ToolSpec::name).distinct().count() != tools.size();
        }
        for (int i = 1; i < tools.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (tools.get(i).name().equals(tools.get(j).name())) {
                    return true;
                }
            }
        }
        return false;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String model() {
        return model;
    }

    public List<Message> messages() {
        return messages;
    }

    public Optional<Double> temperature() {
        return Optional.ofNullable(temperature);
    }

    public Optional<Double> topP() {
        return Optional.ofNullable(topP);
    }

    public Optional<Integer> maxTokens() {
        return Optional.ofNullable(maxTokens);
    }

    public List<String> stopSequences() {
        return stopSequences;
    }

    /**
     * The tools offered through the API's own tool calling; empty (the default) for the tag
     * protocol, where the tools are described in the system message instead.
     */
    public List<ToolSpec> tools() {
        return tools;
    }

    /**
     * Extra HTTP headers for this request, in the order given; empty (the default) for none.
     * The providers send them besides their own. Their values are treated as secrets: never
     * printed, logged or put in an error message.
     */
    public Map<String, String> headers() {
        return headers;
    }

    /** A builder holding this request's values, to change some of them. */
    public Builder toBuilder() {
        Builder builder = new Builder().model(model).messages(messages).stopSequences(stopSequences).tools(tools);
        builder.headers.putAll(headers);
        builder.temperature = temperature;
        builder.topP = topP;
        builder.maxTokens = maxTokens;
        return builder;
    }

    @Override
    public String toString() {
        return "ChatRequest[model=" + model + ", messages=" + messages.size()
                + (temperature != null ? ", temperature=" + temperature : "")
                + (topP != null ? ", topP=" + topP : "")
                + (maxTokens != null ? ", maxTokens=" + maxTokens : "")
                + (stopSequences.isEmpty() ? "" : ", stop=" + stopSequences)
                + (tools.isEmpty() ? "" : ", tools=" + tools.size())
                + (headers.isEmpty() ? "" : ", headers=" + headers.keySet() + " (values redacted)") + "]";
    }

    /** Builds a {@link ChatRequest}; {@link #build()} says what is missing or out of range. */
    public static final class Builder {
        private String model;
        private final List<Message> messages = new ArrayList<>();
        private Double temperature;
        private Double topP;
        private Integer maxTokens;
        private final List<String> stopSequences = new ArrayList<>();
        private final List<ToolSpec> tools = new ArrayList<>();
        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** Replaces the messages. */
        public Builder messages(List<Message> messages) {
            this.messages.clear();
            messages.forEach(this::message);
            return this;
        }

        /** Adds one message. */
        public Builder message(Message message) {
            this.messages.add(Objects.requireNonNull(message, "message"));
            return this;
        }

        public Builder temperature(double temperature) {
            this.temperature = temperature;
            return this;
        }

        public Builder topP(double topP) {
            this.topP = topP;
            return this;
        }

        public Builder maxTokens(int maxTokens) {
            this.maxTokens = maxTokens;
            return this;
        }

        /** Replaces the stop sequences. */
        public Builder stopSequences(List<String> stopSequences) {
            this.stopSequences.clear();
            stopSequences.forEach(stop -> this.stopSequences.add(Objects.requireNonNull(stop, "stop sequence")));
            return this;
        }

        /** Replaces the tools offered natively. */
        public Builder tools(List<ToolSpec> tools) {
            this.tools.clear();
            tools.forEach(tool -> this.tools.add(Objects.requireNonNull(tool, "tool")));
            return this;
        }

        /**
         * Adds (or replaces, whatever its case) an HTTP header sent with this request, such as
         * {@code traceparent}.
         *
         * @throws IllegalArgumentException for a name that is not an HTTP token, a value with a
         *                                  line break, or a header the provider sets itself
         *                                  ({@code Authorization}, {@code Content-Type}, ...)
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isEmpty() || !name.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
                throw new IllegalArgumentException("invalid header name \"" + name + "\"");
            }
            if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("the value of header " + name + " has a line break");
            }
            if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("the header " + name + " is set by the provider");
            }
            headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
            headers.put(name, value);
            return this;
        }

        public ChatRequest build() {
            return new ChatRequest(this);
        }
    }
}
