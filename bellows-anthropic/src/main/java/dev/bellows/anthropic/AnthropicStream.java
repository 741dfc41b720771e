package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.ErrorBodies;
import dev.bellows.http.internal.JsonEvents;
import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One streamed Messages API answer, decoded event by event as the streaming documentation
 * describes them (https://docs.anthropic.com/en/docs/build-with-claude/streaming, now
 * https://platform.claude.com/docs/en/build-with-claude/streaming).
 *
 * <p>The event's type is the JSON {@code type} field, or the SSE {@code event:} name when a
 * relay dropped it from the data; Anthropic sends both, always equal.
 * <ul>
 *   <li>{@code message_start}: {@code message.usage.input_tokens} (and the first
 *       {@code output_tokens}) become {@link #usage()}; {@code message.id} and
 *       {@code message.model} a {@link StreamChunk.ResponseInfo} frame.</li>
 *   <li>{@code content_block_start}: opens a block of type {@code text}, {@code thinking},
 *       {@code redacted_thinking} (a {@link StreamChunk.ThinkingSignature} frame with its
 *       data) or {@code tool_use} (a {@link StreamChunk.ToolCallDelta} with its id and name;
 *       calls are numbered from 0 in the order their blocks start). The initial text of a
 *       {@code text} or {@code thinking} block is empty in practice; should one start with
 *       text, that text is delivered like a delta.</li>
 *   <li>{@code content_block_delta}: {@code text_delta} becomes a {@link StreamChunk.Text}
 *       frame, {@code thinking_delta} a {@link StreamChunk.Reasoning} frame (empty deltas are
 *       skipped), {@code input_json_delta} a {@link StreamChunk.ToolCallDelta} with that piece
 *       of the arguments, as it came. {@code signature_delta} is gathered: the thinking
 *       block's signature. Other delta types ({@code citations_delta}, future ones) are
 *       ignored.</li>
 *   <li>{@code content_block_stop}: a thinking block with a signature ends with a
 *       {@link StreamChunk.ThinkingSignature} frame, so that the block can be sent back
 *       unchanged on later turns. {@code ping}: nothing to do.</li>
 *   <li>{@code message_delta}: {@code delta.stop_reason} becomes {@link #finishReason()},
 *       verbatim ({@code end_turn}, {@code max_tokens}, {@code stop_sequence},
 *       {@code tool_use}, {@code pause_turn}, {@code refusal}); {@code usage.output_tokens}
 *       (cumulative) updates {@link #usage()}.</li>
 *   <li>{@code message_stop}: the answer is complete; a {@link StreamChunk.Usage} frame with
 *       the usage, then {@link #next()} returns null.</li>
 *   <li>{@code error}: fails with the error's own message, its kind by the error's type:
 *       {@code overloaded_error}, {@code api_error} and {@code timeout_error} are
 *       {@link Kind#SERVER_ERROR} (the statuses 529, 500 and 504 they stand for are retried),
 *       {@code rate_limit_error} is {@link Kind#RATE_LIMITED}; every other type
 *       ({@code invalid_request_error}, {@code authentication_error}, ...) and an error
 *       without a type is {@link Kind#CLIENT_ERROR}: the request itself is refused, so
 *       sending it again cannot help, and the API did speak the protocol correctly.</li>
 *   <li>Any other event type is ignored: the API documents that new ones may appear.</li>
 * </ul>
 * Data that is not a JSON object, or a delta without its text, is {@link Kind#PROTOCOL}. The
 * stream ending before {@code message_stop} is {@link Kind#STREAM_BROKEN}: what arrived of
 * the answer is incomplete and must be discarded. Every message is free of the API key.
 */
final class AnthropicStream implements ChatStream {

    private static final ObjectMapper JSON = Jackson.JSON;

    private final SseConnection connection;
    private final URI endpoint;
    private final ApiKey key;

    private final EventDecoder decoder = new EventDecoder(JSON);

    private volatile boolean cancelled;
    private volatile String finishReason;
    private volatile TokenUsage usage;

    private boolean done;                // message_stop seen
    private boolean usageSent;           // the Usage frame went out after message_stop
    private ProviderException failure;   // sticky: every later next() throws it again

    AnthropicStream(SseConnection connection, URI endpoint, ApiKey key) {
        this.connection = connection;
        this.endpoint = endpoint;
        this.key = key;
    }

    /** Content block index to the tool call index (from 0) of its tool_use block. */
    private final java.util.Map<Integer, Integer> toolCalls = new java.util.HashMap<>();
    /** Content block index to the signature of its thinking block, as it arrives. */
    private final java.util.Map<Integer, StringBuilder> signatures = new java.util.HashMap<>();

    @Override
    public StreamChunk next() throws ProviderException {
        if (cancelled) {
            throw cancelledException();
        }
        if (failure != null) {
            throw failure;
        }
        if (done) {
            return usageFrame();
        }
        try {
            while (true) {
                SseEvent event = connection.next();
                if (event == null) {
                    throw new ProviderException(Kind.STREAM_BROKEN, "the stream from " + display(endpoint)
                            + " ended before message_stop: the answer is incomplete");
                }
                StreamChunk chunk = decode(event);
                if (done) {
                    // Reads the body's end first, so the connection goes back to the pool for
                    // the next request instead of being dropped.
                    decoder.reset();
                    connection.closeAfterEnd();
                    return usageFrame();
                }
                if (chunk != null) {
                    return chunk;
                }
            }
        } catch (ProviderException e) {
            failure = cancelled && e.kind() != Kind.CANCELLED ? cancelledException() : e;
            decoder.reset();
            connection.close();
            throw failure;
        }
    }

    /** After message_stop: the usage once, as the answer's last frame, then null. */
    private StreamChunk usageFrame() {
        TokenUsage used = usage;
        if (usageSent || used == null) {
            return null;
        }
        usageSent = true;
        return new StreamChunk.Usage(used.inputTokens(), used.outputTokens());
    }

    /** The frame an event carries, or null; sets {@link #done} at {@code message_stop}. */
    private StreamChunk decode(SseEvent event) throws ProviderException {
        try {
            if (JsonEvents.startsAnObjectInWellFormedUtf8(event)) {
                decoder.decode(event);
            } else {
                // Rare: data that is not an object, or not well-formed UTF-8 (decoded with U+FFFD).
                byte[] text = event.data().getBytes(StandardCharsets.UTF_8);
                if (!startsAnObject(text)) {
                    throw notAnObject(event);
                }
                decoder.decode(text);
            }
        } catch (IOException e) {
            throw malformed(event);
        }
        return apply(event, decoder);
    }

    private static boolean startsAnObject(byte[] utf8) {
        for (byte b : utf8) {
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return b == '{';
            }
        }
        return false;
    }

    /** Data that is not an object: malformed JSON, or another value. */
    private ProviderException notAnObject(SseEvent event) {
        try {
            JSON.readTree(event.data());
        } catch (JacksonException e) {
            return malformed(event);
        }
        return protocol("a '" + event.event() + "' event whose data is not a JSON object");
    }

    private ProviderException malformed(SseEvent event) {
        return protocol("malformed JSON in a '" + event.event() + "' event: "
                + dev.bellows.stream.internal.JsonSyntax.problem(event.data()).orElse("it cannot be read"));
    }

    /** What the decoder read: the frame the event carries, if any; the finish reason and usage kept. */
    private StreamChunk apply(SseEvent event, EventDecoder f) throws ProviderException {
        String type = f.type != null ? f.type : event.event();
        switch (type) {
            case "message_start" -> {
                if (f.messageUsage) {
                    readUsage(f.messageInput, f.messageOutput);
                }
                if (f.messageId != null || f.messageModel != null) {
                    return new StreamChunk.ResponseInfo(f.messageId, f.messageModel);
                }
            }
            case "content_block_start" -> {
                return switch (orEmpty(f.blockType)) {
                    case "text" -> chunk(f.blockText, false);
                    case "thinking" -> {
                        signatures.put(f.index, new StringBuilder());
                        yield chunk(f.blockThinking, true);
                    }
                    case "redacted_thinking" -> StreamChunk.ThinkingSignature.redacted(orEmpty(f.blockData));
                    case "tool_use" -> {
                        int call = toolCalls.size();
                        toolCalls.put(f.index, call);
                        yield new StreamChunk.ToolCallDelta(call, orEmpty(f.blockId), orEmpty(f.blockName), "");
                    }
                    default -> null;   // future block types
                };
            }
            case "content_block_delta" -> {
                String deltaType = orEmpty(f.deltaType);
                return switch (deltaType) {
                    case "text_delta" -> chunk(required(f.deltaText, "text", type, deltaType), false);
                    case "thinking_delta" -> chunk(required(f.deltaThinking, "thinking", type, deltaType), true);
                    case "signature_delta" -> {
                        signatures.computeIfAbsent(f.index, i -> new StringBuilder()).append(orEmpty(f.deltaSignature));
                        yield null;
                    }
                    case "input_json_delta" -> {
                        Integer call = toolCalls.get(f.index);
                        String json = orEmpty(f.deltaPartialJson);
                        yield call == null || json.isEmpty() ? null : new StreamChunk.ToolCallDelta(call, null, null, json);
                    }
                    default -> null;   // citations_delta, ...
                };
            }
            case "content_block_stop" -> {
                // A thinking block is complete: its signature goes with it (the text came as reasoning frames).
                StringBuilder signature = signatures.remove(f.index);
                if (signature != null && !signature.isEmpty()) {
                    return StreamChunk.ThinkingSignature.signed(signature.toString());
                }
            }
            case "message_delta" -> {
                if (f.stopReason != null) {
                    finishReason = f.stopReason;
                }
                if (f.usage) {
                    readUsage(f.usageInput, f.usageOutput);
                }
            }
            case "message_stop" -> done = true;
            case "error" -> throw errorEvent(event.data(), orEmpty(f.errorType));
            default -> {
                // ping, and event types added after this was written
            }
        }
        return null;
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private String required(String value, String field, String type, String deltaType) throws ProviderException {
        if (value == null) {
            throw protocol("a '" + type + "' event of type " + deltaType + " without its '" + field + "' text");
        }
        return value;
    }

    private static StreamChunk chunk(String text, boolean thinking) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        return thinking ? StreamChunk.thinking(text) : StreamChunk.message(text);
    }

    /** Counts of at least 0 replace those from before; -1 keeps them. */
    private void readUsage(long inputCount, long outputCount) {
        TokenUsage before = usage;
        long input = inputCount >= 0 ? inputCount : before == null ? 0 : before.inputTokens();
        long output = outputCount >= 0 ? outputCount : before == null ? 0 : before.outputTokens();
        usage = new TokenUsage(input, output);
    }

    private ProviderException errorEvent(String data, String errorType) {
        Kind kind = switch (errorType) {
            case "overloaded_error", "api_error", "timeout_error" -> Kind.SERVER_ERROR;
            case "rate_limit_error" -> Kind.RATE_LIMITED;
            default -> Kind.CLIENT_ERROR;
        };
        // redacted before ErrorBodies shortens it: a cut through an echoed key would leave part of it
        String message = ErrorBodies.message(redact(data));
        String text = "error from " + display(endpoint) + " mid-stream"
                + (errorType.isEmpty() ? "" : " (" + errorType + ")") + ": " + message;
        return new ProviderException(kind, redact(text));
    }

    private ProviderException protocol(String what) {
        return new ProviderException(Kind.PROTOCOL, redact("cannot understand the stream from "
                + display(endpoint) + ": " + what));
    }

    private ProviderException cancelledException() {
        return new ProviderException(Kind.CANCELLED, "the stream from " + display(endpoint) + " was cancelled");
    }

    private String redact(String text) {
        return key == null ? text : key.redact(text);
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
        cancelled = true;
        connection.cancel();
    }

    @Override
    public void close() {
        decoder.reset();
        connection.close();
    }

    @Override
    public String toString() {
        return "AnthropicStream[" + display(endpoint) + (done ? ", complete" : "") + "]";
    }

    /**
     * The URI as it may appear in messages: scheme, host, port and path; never user info
     * (which may hold credentials), query or fragment.
     */
    static String display(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() == -1 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }
}
