package dev.bellows.anthropic;

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
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The reference for what a Messages API event stream means: every event's data read whole as
 * a Jackson tree, each field taken with the tree's own accessors ({@code path}, {@code asText},
 * {@code asInt}, {@code isTextual}, {@code canConvertToLong}). This was the provider's fallback
 * decoder; the provider now has one decoder ({@link EventDecoder}), which
 * {@code EventDecoderProperties} holds to this reader's frames, finish reason, usage and
 * failures for random events. Slow on purpose: clarity over speed.
 */
final class TreeEventReader implements ChatStream {

    private static final ObjectMapper JSON = Jackson.JSON;

    private final SseConnection connection;
    private final URI endpoint;
    private final Map<Integer, Integer> toolCalls = new HashMap<>();
    private final Map<Integer, StringBuilder> signatures = new HashMap<>();
    private String finishReason;
    private TokenUsage usage;
    private boolean done;
    private boolean usageSent;
    private ProviderException failure;

    TreeEventReader(SseConnection connection, URI endpoint) {
        this.connection = connection;
        this.endpoint = endpoint;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        if (failure != null) {
            throw failure;
        }
        try {
            while (!done) {
                SseEvent event = connection.next();
                if (event == null) {
                    throw new ProviderException(Kind.STREAM_BROKEN, "the stream from "
                            + AnthropicStream.display(endpoint) + " ended before message_stop: the answer is incomplete");
                }
                StreamChunk chunk = decode(event);
                if (chunk != null && !done) {
                    return chunk;
                }
            }
        } catch (ProviderException e) {
            failure = e;
            throw e;
        }
        if (usageSent || usage == null) {
            return null;
        }
        usageSent = true;
        return new StreamChunk.Usage(usage.inputTokens(), usage.outputTokens());
    }

    private StreamChunk decode(SseEvent event) throws ProviderException {
        JsonNode data;
        try {
            data = JSON.readTree(event.data());
        } catch (JacksonException e) {
            throw protocol("malformed JSON in a '" + event.event() + "' event: "
                    + dev.bellows.stream.internal.JsonSyntax.problem(event.data()).orElse("it cannot be read"));
        }
        if (data == null || !data.isObject()) {
            throw protocol("a '" + event.event() + "' event whose data is not a JSON object");
        }
        String type = data.path("type").isString() ? data.get("type").asString() : event.event();
        switch (type) {
            case "message_start" -> {
                JsonNode message = data.path("message");
                readUsage(message.path("usage"));
                String id = nonEmptyText(message.path("id"));
                String model = nonEmptyText(message.path("model"));
                if (id != null || model != null) {
                    return new StreamChunk.ResponseInfo(id, model);
                }
            }
            case "content_block_start" -> {
                JsonNode block = data.path("content_block");
                int index = data.path("index").asInt(-1);
                return switch (block.path("type").asString("")) {
                    case "text" -> chunk(block.path("text"), false);
                    case "thinking" -> {
                        signatures.put(index, new StringBuilder());
                        yield chunk(block.path("thinking"), true);
                    }
                    case "redacted_thinking" -> StreamChunk.ThinkingSignature.redacted(block.path("data").asString(""));
                    case "tool_use" -> {
                        int call = toolCalls.size();
                        toolCalls.put(index, call);
                        yield new StreamChunk.ToolCallDelta(call, block.path("id").asString(""),
                                block.path("name").asString(""), "");
                    }
                    default -> null;
                };
            }
            case "content_block_delta" -> {
                JsonNode delta = data.path("delta");
                int index = data.path("index").asInt(-1);
                return switch (delta.path("type").asString("")) {
                    case "text_delta" -> chunk(required(delta, "text", type), false);
                    case "thinking_delta" -> chunk(required(delta, "thinking", type), true);
                    case "signature_delta" -> {
                        signatures.computeIfAbsent(index, i -> new StringBuilder()).append(delta.path("signature").asString(""));
                        yield null;
                    }
                    case "input_json_delta" -> {
                        Integer call = toolCalls.get(index);
                        String json = delta.path("partial_json").asString("");
                        yield call == null || json.isEmpty() ? null : new StreamChunk.ToolCallDelta(call, null, null, json);
                    }
                    default -> null;
                };
            }
            case "content_block_stop" -> {
                StringBuilder signature = signatures.remove(data.path("index").asInt(-1));
                if (signature != null && !signature.isEmpty()) {
                    return StreamChunk.ThinkingSignature.signed(signature.toString());
                }
            }
            case "message_delta" -> {
                JsonNode stopReason = data.path("delta").path("stop_reason");
                if (stopReason.isString()) {
                    finishReason = stopReason.asString();
                }
                readUsage(data.path("usage"));
            }
            case "message_stop" -> done = true;
            case "error" -> throw errorEvent(event.data(), data.path("error").path("type").asString(""));
            default -> {
                // ping, and event types added later
            }
        }
        return null;
    }

    private static String nonEmptyText(JsonNode node) {
        return node.isString() && !node.asString().isEmpty() ? node.asString() : null;
    }

    private JsonNode required(JsonNode delta, String field, String type) throws ProviderException {
        JsonNode value = delta.path(field);
        if (!value.isString()) {
            throw protocol("a '" + type + "' event of type " + delta.path("type").asString() + " without its '"
                    + field + "' text");
        }
        return value;
    }

    private static StreamChunk chunk(JsonNode text, boolean thinking) {
        if (!text.isString() || text.asString().isEmpty()) {
            return null;
        }
        return thinking ? StreamChunk.thinking(text.asString()) : StreamChunk.message(text.asString());
    }

    private void readUsage(JsonNode node) {
        if (!node.isObject()) {
            return;
        }
        TokenUsage before = usage;
        long input = count(node.path("input_tokens"), before == null ? 0 : before.inputTokens());
        long output = count(node.path("output_tokens"), before == null ? 0 : before.outputTokens());
        usage = new TokenUsage(input, output);
    }

    private static long count(JsonNode node, long otherwise) {
        if (!node.isNumber()) {
            return otherwise;
        }
        java.math.BigInteger whole = node.decimalValue().toBigInteger();   // a float truncated, as Jackson 2 did
        return whole.signum() >= 0 && whole.bitLength() < Long.SIZE ? whole.longValue() : otherwise;
    }

    private ProviderException errorEvent(String data, String errorType) {
        Kind kind = switch (errorType) {
            case "overloaded_error", "api_error", "timeout_error" -> Kind.SERVER_ERROR;
            case "rate_limit_error" -> Kind.RATE_LIMITED;
            default -> Kind.CLIENT_ERROR;
        };
        String message = ErrorBodies.message(data);
        return new ProviderException(kind, "error from " + AnthropicStream.display(endpoint) + " mid-stream"
                + (errorType.isEmpty() ? "" : " (" + errorType + ")") + ": " + message);
    }

    private ProviderException protocol(String what) {
        return new ProviderException(Kind.PROTOCOL, "cannot understand the stream from "
                + AnthropicStream.display(endpoint) + ": " + what);
    }

    @Override
    public Optional<String> finishReason() {
        return Optional.ofNullable(finishReason);
    }

    @Override
    public Optional<TokenUsage> usage() {
        return Optional.ofNullable(usage);
    }

    @Override
    public void cancel() {
    }

    @Override
    public void close() {
    }
}
