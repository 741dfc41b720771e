package dev.bellows.openai;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.ErrorBodies;
import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Optional;

/**
 * The reference for what a {@code chat.completion.chunk} event stream means: every event's
 * data read whole as a Jackson tree, each field taken with the tree's own accessors. This was
 * the provider's fallback decoder; the provider now has one decoder ({@link ChunkDecoder}),
 * which {@code ChunkDecoderProperties} holds to this reader's frames, finish reason, usage and
 * errors for random events. Slow on purpose: clarity over speed.
 */
final class TreeChunkReader implements ChatStream {

    private static final ObjectMapper JSON = Jackson.JSON;

    private final SseConnection connection;
    private final String where;
    private final Redactor redactor;
    private final ArrayDeque<StreamChunk> ready = new ArrayDeque<>();
    private int toolCallsSeen;
    private boolean responseSeen;
    private String finishReason;
    private TokenUsage usage;
    private TokenUsage timingsUsage;
    private boolean done;
    private long events;
    private long delivered;

    TreeChunkReader(SseConnection connection, String where, Redactor redactor) {
        this.connection = connection;
        this.where = where;
        this.redactor = redactor;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        while (true) {
            StreamChunk chunk = ready.poll();
            if (chunk != null) {
                if (!(chunk instanceof StreamChunk.ResponseInfo)) {
                    delivered++;
                }
                return chunk;
            }
            if (done) {
                return null;
            }
            SseEvent event = connection.next();
            if (event == null) {
                if (finishReason == null) {
                    throw new ProviderException(Kind.STREAM_BROKEN, "the stream from " + where + " ended before the"
                            + " answer was complete (no finish_reason and no [DONE] after " + events
                            + (events == 1 ? " event" : " events") + ")");
                }
                finish();
            } else {
                accept(event);
            }
        }
    }

    private void finish() {
        done = true;
        if (usage == null && timingsUsage != null) {
            usage = timingsUsage;
        }
        if (usage != null) {
            ready.add(new StreamChunk.Usage(usage.inputTokens(), usage.outputTokens()));
        }
    }

    private void accept(SseEvent event) throws ProviderException {
        events++;
        if (event.event().equals("error")) {
            throw streamError(event.data());
        }
        if (!event.event().equals("message")) {
            return;
        }
        String data = event.data().strip();
        if (data.isEmpty()) {
            return;
        }
        if (data.equals("[DONE]")) {
            if (finishReason == null && delivered == 0 && ready.isEmpty()) {
                throw new ProviderException(Kind.PROTOCOL, "the stream from " + where + " ended ([DONE]) without"
                        + " any answer or finish_reason; llama.cpp servers built before September 2025 report"
                        + " errors this way, on a non-standard 'error:' line that SSE clients drop: see the server's log");
            }
            finish();
            return;
        }
        JsonNode root;
        try {
            root = JSON.readTree(data);
        } catch (JacksonException e) {
            throw new ProviderException(Kind.PROTOCOL, redactor.redact("malformed JSON in event " + events + " from "
                    + where + ": " + dev.bellows.stream.internal.JsonSyntax.problem(data).orElse("it cannot be read")), null);
        }
        if (root == null || !root.isObject()) {
            throw new ProviderException(Kind.PROTOCOL, "event " + events + " from " + where
                    + " is not a JSON object but " + (root == null ? "empty" : kindOf(root)));
        }
        JsonNode error = root.get("error");
        if (error != null && !error.isNull()) {
            throw streamError(data);
        }
        if (!responseSeen) {
            String id = text(root, "id");
            String model = text(root, "model");
            if (id != null || model != null) {
                responseSeen = true;
                ready.add(new StreamChunk.ResponseInfo(id, model));
            }
        }
        JsonNode choices = root.get("choices");
        if (choices != null && choices.isArray()) {
            for (JsonNode choice : choices) {
                if (choice.isObject() && choice.path("index").asInt(0) == 0) {
                    acceptChoice(choice);
                    break;
                }
            }
        }
        acceptUsage(root);
    }

    private void acceptChoice(JsonNode choice) {
        JsonNode delta = choice.get("delta");
        if (delta != null && delta.isObject()) {
            String reasoning = text(delta, "reasoning_content");
            if (reasoning == null) {
                reasoning = text(delta, "reasoning");
            }
            if (reasoning != null) {
                ready.add(StreamChunk.thinking(reasoning));
            }
            String content = text(delta, "content");
            if (content != null) {
                ready.add(StreamChunk.message(content));
            }
            String refusal = text(delta, "refusal");
            if (refusal != null) {
                ready.add(StreamChunk.message(refusal));
            }
            JsonNode calls = delta.get("tool_calls");
            if (calls != null && calls.isArray()) {
                for (JsonNode call : calls) {
                    acceptToolCall(call);
                }
            }
        }
        JsonNode reason = choice.get("finish_reason");
        if (reason != null && reason.isString() && !reason.asString().isEmpty()) {
            finishReason = reason.asString();
        }
    }

    private void acceptToolCall(JsonNode call) {
        if (!call.isObject()) {
            return;
        }
        String id = text(call, "id");
        int index = call.path("index").isIntegralNumber() && call.get("index").bigIntegerValue().intValue() >= 0
                ? call.get("index").bigIntegerValue().intValue() : -1;   // a long cut to an int, as Jackson 2's asInt() did
        JsonNode function = call.path("function");
        String name = text(function, "name");
        JsonNode arguments = function.get("arguments");
        String text = arguments == null || arguments.isNull() ? ""
                : arguments.isString() ? arguments.asString() : arguments.toString();
        if (index < 0) {
            index = id != null ? toolCallsSeen : Math.max(toolCallsSeen - 1, 0);
        }
        toolCallsSeen = Math.max(toolCallsSeen, index + 1);
        ready.add(new StreamChunk.ToolCallDelta(index, id, name, text));
    }

    private void acceptUsage(JsonNode root) {
        JsonNode u = root.get("usage");
        if (u != null && u.isObject()) {
            long in = count(u.get("prompt_tokens"));
            long out = count(u.get("completion_tokens"));
            if (in >= 0 || out >= 0) {
                usage = new TokenUsage(Math.max(in, 0), Math.max(out, 0));
            }
        }
        JsonNode t = root.get("timings");
        if (t != null && t.isObject()) {
            long prompt = count(t.get("prompt_n"));
            long cached = count(t.get("cache_n"));
            long predicted = count(t.get("predicted_n"));
            if (prompt >= 0 || predicted >= 0) {
                long sum = Math.max(prompt, 0) + Math.max(cached, 0);
                timingsUsage = new TokenUsage(sum < 0 ? Long.MAX_VALUE : sum, Math.max(predicted, 0));
            }
        }
    }

    private static long count(JsonNode node) {
        if (node == null || !node.isNumber()) {
            return -1;
        }
        java.math.BigInteger whole = node.decimalValue().toBigInteger();   // a float truncated, as Jackson 2 did
        return whole.signum() >= 0 && whole.bitLength() < Long.SIZE ? whole.longValue() : -1;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isString() && !value.asString().isEmpty() ? value.asString() : null;
    }

    private ProviderException streamError(String data) {
        String message = null;
        Kind kind = Kind.SERVER_ERROR;
        try {
            JsonNode root = JSON.readTree(data);
            JsonNode error = root == null ? null : root.has("error") ? root.get("error") : root;
            if (error != null && error.isObject() && error.path("error").isObject()) {
                error = error.get("error");
            }
            if (error != null && error.isString()) {
                message = error.asString();
            } else if (error != null && error.isObject()) {
                message = error.path("message").isString() ? error.get("message").asString() : null;
                kind = OpenAiChatStream.kindOf(error.get("code"), error.get("type"));
            }
        } catch (JacksonException notJson) {
            // shown as it is
        }
        if (message == null || message.isBlank()) {
            message = ErrorBodies.message(data);
        }
        String text = "error in the stream from " + where + (message.isBlank() ? "" : ": " + message.strip());
        return new ProviderException(kind, redactor.redact(text));
    }

    private static String kindOf(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    @Override
    public Optional<String> finishReason() {
        return Optional.ofNullable(finishReason);
    }

    @Override
    public Optional<TokenUsage> usage() {
        return Optional.ofNullable(usage != null ? usage : timingsUsage);
    }

    @Override
    public void cancel() {
    }

    @Override
    public void close() {
    }
}
