package dev.bellows.openai;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.ErrorBodies;
import dev.bellows.http.internal.JsonEvents;
import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Optional;

/**
 * Decodes one {@code chat.completion.chunk} event stream into {@link StreamChunk} frames, one
 * SSE event at a time, on the consuming thread, with one decoder ({@link ChunkDecoder}). See
 * DIALECTS.md for what each server sends.
 *
 * <p>Frames: the response's id and model ({@link StreamChunk.ResponseInfo}) with the first
 * event that names either; per event its reasoning, text, refusal (as text) and native
 * tool-call deltas, in that order; the usage ({@link StreamChunk.Usage}, what {@link #usage()}
 * then says) as the last frame of a complete answer.
 *
 * <p>The end of the answer: {@code data: [DONE]}, or a clean end of the body after a
 * {@code finish_reason} (servers that never send {@code [DONE]}). A body that ends before
 * either is a {@link Kind#STREAM_BROKEN broken stream}.
 */
final class OpenAiChatStream implements ChatStream {

    private static final ObjectMapper JSON = Jackson.JSON;   // messages never quote the payload: Jackson 3 leaves the source out of locations

    private final SseConnection connection;
    private final String where;
    private final Redactor redactor;
    private final ArrayDeque<StreamChunk> ready = new ArrayDeque<>(2);
    private final ChunkDecoder decoder = new ChunkDecoder(JSON);
    private int toolCallsSeen;

    private volatile boolean cancelled;
    private volatile String finishReason;
    private volatile TokenUsage usage;
    private volatile TokenUsage timingsUsage;
    private boolean done;
    private boolean closed;
    private long events;
    private long delivered;                    // frames of the answer returned (not ResponseInfo)

    OpenAiChatStream(SseConnection connection, String where, Redactor redactor) {
        this.connection = connection;
        this.where = where;
        this.redactor = redactor;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        while (true) {
            if (cancelled) {
                throw new ProviderException(Kind.CANCELLED, "the stream from " + where + " was cancelled");
            }
            StreamChunk chunk = ready.poll();
            if (chunk != null) {
                if (!(chunk instanceof StreamChunk.ResponseInfo)) {
                    delivered++;                   // a chunk of the answer
                }
                return chunk;
            }
            if (done) {
                return null;
            }
            SseEvent event;
            try {
                event = connection.next();
            } catch (ProviderException e) {
                release();
                throw redactor.redact(e);
            }
            if (event == null) {
                endOfBody();
            } else {
                try {
                    accept(event);
                } catch (ProviderException e) {
                    release();
                    throw e;
                }
            }
        }
    }

    private void endOfBody() throws ProviderException {
        release();
        if (finishReason == null) {
            throw new ProviderException(Kind.STREAM_BROKEN, "the stream from " + where + " ended before the answer"
                    + " was complete (no finish_reason and no [DONE] after " + events + plural(events, " event") + ")");
        }
        finish();
    }

    private void finish() {
        done = true;
        decoder.reset();
        if (usage == null && timingsUsage != null) {
            usage = timingsUsage;
        }
        TokenUsage used = usage;
        if (used != null) {
            ready.add(new StreamChunk.Usage(used.inputTokens(), used.outputTokens()));
        }
        if (!closed) {
            closed = true;
            connection.closeAfterEnd();        // reads the body's end, so the connection stays alive
        }
    }

    private void accept(SseEvent event) throws ProviderException {
        events++;
        String type = event.event();
        if (type.equals("error")) {
            throw streamError(event.data());
        }
        if (!type.equals("message")) {
            return;                                  // e.g. "event: ping" from proxies: not part of the answer
        }
        if (JsonEvents.startsAnObjectInWellFormedUtf8(event)) {
            decode(event, null);
            return;
        }
        // Rare: data that is not an object, is not well-formed UTF-8 (decoded with U+FFFD), or
        // has other white space around it. Read as its text.
        String data = event.data().strip();
        if (data.isEmpty()) {
            return;                                  // "data:" keep-alives
        }
        if (data.equals("[DONE]")) {
            if (finishReason == null && delivered == 0 && ready.isEmpty()) {
                release();
                throw new ProviderException(Kind.PROTOCOL, "the stream from " + where + " ended ([DONE]) without"
                        + " any answer or finish_reason; llama.cpp servers built before September 2025 report"
                        + " errors this way, on a non-standard 'error:' line that SSE clients drop: see the server's log");
            }
            finish();
            return;
        }
        if (data.charAt(0) != '{') {
            throw notAnObject(data);
        }
        decode(event, data);
    }

    /** Decodes an object event: its bytes as they came, or {@code text} (its data, stripped) when given. */
    private void decode(SseEvent event, String text) throws ProviderException {
        try {
            if (text == null) {
                decoder.decode(event);
            } else {
                decoder.decode(text.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw malformed(text != null ? text : event.data().strip());
        }
        if (decoder.error) {
            throw streamError(text != null ? text : event.data().strip());
        }
        apply(decoder);
    }

    /** Data that is neither empty, {@code [DONE]}, nor an object: why it is not one, in plain words. */
    private ProviderException notAnObject(String data) {
        JsonNode root;
        try {
            root = JSON.readTree(data);
        } catch (JacksonException e) {
            return malformed(data);
        }
        return new ProviderException(Kind.PROTOCOL, "event " + events + " from " + where
                + " is not a JSON object but " + (root == null ? "empty" : kindOf(root)));
    }

    /** What the decoder read: frames for the consumer, and the finish reason and usage kept. */
    private void apply(ChunkDecoder decoded) {
        if (decoded.wantResponse && (decoded.responseId != null || decoded.responseModel != null)) {
            decoded.wantResponse = false;
            ready.add(new StreamChunk.ResponseInfo(decoded.responseId, decoded.responseModel));
        }
        ChunkDecoder.Choice choice = decoded.choice;
        if (choice != null) {
            if (choice.hasDelta) {
                // Reasoning before text: within one event the reasoning was produced first.
                // Some servers send both names with the same text: reasoning_content wins, never both.
                String reasoning = choice.reasoningContent != null ? choice.reasoningContent : choice.reasoning;
                if (reasoning != null) {
                    ready.add(StreamChunk.thinking(reasoning));
                }
                if (choice.content != null) {
                    ready.add(StreamChunk.message(choice.content));
                }
                if (choice.refusal != null) {   // OpenAI's refusals: the model's answer, shown as text
                    ready.add(StreamChunk.message(choice.refusal));
                }
                for (int i = 0; i < choice.calls; i++) {
                    ChunkDecoder.ToolCall call = choice.toolCalls[i];
                    addToolCall(call.index, call.id, call.name, call.arguments);
                }
            }
            if (choice.finishReason != null) {
                finishReason = choice.finishReason;
            }
        }
        if (decoded.promptTokens >= 0 || decoded.completionTokens >= 0) {
            usage = new TokenUsage(Math.max(decoded.promptTokens, 0), Math.max(decoded.completionTokens, 0));
        }
        if (decoded.promptN >= 0 || decoded.predictedN >= 0) {
            timingsUsage = new TokenUsage(saturatedSum(decoded.promptN, decoded.cacheN), Math.max(decoded.predictedN, 0));
        }
    }

    /**
     * One entry of {@code delta.tool_calls}: the first for a call carries its id and name, later
     * ones more of its arguments. Servers that leave out {@code index} (some send each call
     * whole in one delta) get one: a new call for each id, else the last call.
     *
     * @param index the call's index as sent, or -1 when it had none that counts
     */
    private void addToolCall(int index, String id, String name, String arguments) {
        if (index < 0) {
            index = id != null ? toolCallsSeen : Math.max(toolCallsSeen - 1, 0);
        }
        toolCallsSeen = Math.max(toolCallsSeen, index + 1);
        ready.add(new StreamChunk.ToolCallDelta(index, id, name, arguments));
    }

    /** Prompt and cached tokens together, absent ones as 0; never negative (huge counts stop at the largest long). */
    private static long saturatedSum(long prompt, long cached) {
        long sum = Math.max(prompt, 0) + Math.max(cached, 0);
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** An error reported inside the stream: {@code data: {"error": ...}} or {@code event: error}. */
    private ProviderException streamError(String data) {
        String message = null;
        Kind kind = Kind.SERVER_ERROR;
        try {
            JsonNode root = JSON.readTree(data);
            JsonNode error = root == null ? null : root.has("error") ? root.get("error") : root;
            if (error != null && error.isObject() && error.path("error").isObject()) {
                error = error.get("error");             // a wrapper around the usual shape
            }
            if (error != null && error.isString()) {
                message = error.asString();
            } else if (error != null && error.isObject()) {
                message = error.path("message").isString() ? error.get("message").asString() : null;
                kind = kindOf(error.get("code"), error.get("type"));
            }
        } catch (JacksonException notJson) {
            // a plain-text error: shown as it is
        }
        if (message == null || message.isBlank()) {
            message = ErrorBodies.message(data);
        }
        String text = "error in the stream from " + where + (message.isBlank() ? "" : ": " + message.strip());
        return new ProviderException(kind, redactor.redact(text));
    }

    /**
     * The retry class of an in-stream error: a numeric {@code code} is read as an HTTP status
     * (vLLM, llama.cpp), a textual one or the {@code type} by name (OpenAI).
     */
    static Kind kindOf(JsonNode code, JsonNode type) {
        if (code != null && code.isIntegralNumber()) {
            int status = code.asInt();
            if (status == 429) {
                return Kind.RATE_LIMITED;
            }
            if (status >= 400 && status < 500 && status != 408 && status != 409) {
                return Kind.CLIENT_ERROR;
            }
            if (status >= 400) {
                return Kind.SERVER_ERROR;
            }
        }
        String name = ((code != null && code.isString() ? code.asString() : "") + " "
                + (type != null && type.isString() ? type.asString() : "")).toLowerCase(Locale.ROOT);
        if (name.contains("rate_limit") || name.contains("ratelimit") || name.contains("too_many_requests")) {
            return Kind.RATE_LIMITED;
        }
        if (name.contains("invalid_request") || name.contains("badrequest") || name.contains("context_length")
                || name.contains("authentication") || name.contains("permission") || name.contains("not_found")
                || name.contains("notfound")) {
            return Kind.CLIENT_ERROR;
        }
        return Kind.SERVER_ERROR;
    }

    /** In plain words and with the position, never Jackson's wording (which names its own features). */
    private ProviderException malformed(String data) {
        String problem = dev.bellows.stream.internal.JsonSyntax.problem(data).orElse("it cannot be read");
        return new ProviderException(Kind.PROTOCOL, redactor.redact("malformed JSON in event " + events + " from "
                + where + ": " + problem), null);
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

    private static String plural(long n, String word) {
        return n == 1 ? word : word + "s";
    }

    @Override
    public Optional<String> finishReason() {
        return Optional.ofNullable(finishReason);
    }

    @Override
    public Optional<TokenUsage> usage() {
        TokenUsage reported = usage;
        return Optional.ofNullable(reported != null ? reported : timingsUsage);
    }

    @Override
    public void cancel() {
        cancelled = true;
        connection.cancel();
    }

    @Override
    public void close() {
        release();
    }

    private void release() {
        decoder.reset();
        if (!closed) {
            closed = true;
            connection.close();
        }
    }

    @Override
    public String toString() {
        return "OpenAiChatStream[" + where + (finishReason != null ? ", finish=" + finishReason : "") + "]";
    }
}
