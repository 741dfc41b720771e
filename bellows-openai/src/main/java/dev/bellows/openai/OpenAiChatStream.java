package dev.bellows.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.bellows.http.ErrorBodies;
import dev.bellows.http.JsonEvents;
import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderChunks;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Optional;

/**
 * Decodes one {@code chat.completion.chunk} event stream into {@link StreamChunk}s, one SSE
 * event at a time, on the consuming thread. See DIALECTS.md for what each server sends.
 *
 * <p>The end of the answer: {@code data: [DONE]}, or a clean end of the body after a
 * {@code finish_reason} (servers that never send {@code [DONE]}). A body that ends before
 * either is a {@link Kind#STREAM_BROKEN broken stream}.
 */
final class OpenAiChatStream implements ChatStream {

    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    // Buffers from a pool every thread shares: the default keeps them per thread,
                    // and each run goes on on a new virtual thread, so it would allocate them anew.
                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                    .build())
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)   // messages never quote the payload
            .build();

    private final SseConnection connection;
    private final String where;
    private final Redactor redactor;
    private final ArrayDeque<StreamChunk> ready = new ArrayDeque<>(2);
    private final boolean fastPath;
    private final FastChunkDecoder fast = new FastChunkDecoder(JSON.getFactory());
    private int toolCallsSeen;

    private volatile boolean cancelled;
    private volatile String finishReason;
    private volatile TokenUsage usage;
    private volatile TokenUsage timingsUsage;
    private boolean done;
    private boolean closed;
    private long events;
    private long delivered;
    private long fastDecoded;

    OpenAiChatStream(SseConnection connection, String where, Redactor redactor) {
        this(connection, where, redactor, true);
    }

    /** @param fastPath false to decode every event as a tree, as the reference for tests */
    OpenAiChatStream(SseConnection connection, String where, Redactor redactor, boolean fastPath) {
        this.connection = connection;
        this.where = where;
        this.redactor = redactor;
        this.fastPath = fastPath;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        while (true) {
            if (cancelled) {
                throw new ProviderException(Kind.CANCELLED, "the stream from " + where + " was cancelled");
            }
            StreamChunk chunk = ready.poll();
            if (chunk != null) {
                delivered++;
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
        fast.reset();
        if (usage == null && timingsUsage != null) {
            usage = timingsUsage;
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
        if (fastPath && JsonEvents.startsAnObjectInWellFormedUtf8(event)) {
            try {
                if (fast.decode(event)) {
                    if (fast.error) {
                        throw streamError(event.data().strip());
                    }
                    apply(fast);
                    fastDecoded++;
                    return;
                }
            } catch (java.io.IOException unusual) {
                // the tree below is the reference: it decides what the event means
            }
            fast.reset();
        }
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
        JsonNode root;
        try {
            root = JSON.readTree(data);
        } catch (JsonProcessingException e) {
            throw malformed(data);
        }
        if (root == null || !root.isObject()) {
            throw new ProviderException(Kind.PROTOCOL, "event " + events + " from " + where
                    + " is not a JSON object but " + (root == null ? "empty" : kindOf(root)));
        }
        JsonNode error = root.get("error");
        if (error != null && !error.isNull()) {
            throw streamError(data);
        }
        JsonNode choices = root.get("choices");
        if (choices != null && choices.isArray()) {
            JsonNode choice = firstChoice(choices);
            if (choice != null) {
                acceptChoice(choice);
            }
        }
        acceptUsage(root);
    }

    /** What the fast decoder read, applied as {@link #acceptChoice} and {@link #acceptUsage} apply a tree. */
    private void apply(FastChunkDecoder decoded) {
        FastChunkDecoder.Choice choice = decoded.choice;
        if (choice != null) {
            if (choice.hasDelta) {
                String reasoning = choice.reasoningContent != null ? choice.reasoningContent : choice.reasoning;
                if (reasoning != null) {
                    ready.add(StreamChunk.thinking(reasoning));
                }
                if (choice.content != null) {
                    ready.add(StreamChunk.message(choice.content));
                }
                if (choice.refusal != null) {
                    ready.add(StreamChunk.message(choice.refusal));
                }
                for (int i = 0; i < choice.calls; i++) {
                    FastChunkDecoder.ToolCall call = choice.toolCalls[i];
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

    /** The choice with index 0 (Bellows asks for one); a missing index counts as 0. */
    private static JsonNode firstChoice(JsonNode choices) {
        for (JsonNode choice : choices) {
            if (choice.isObject() && choice.path("index").asInt(0) == 0) {
                return choice;
            }
        }
        return null;
    }

    private void acceptChoice(JsonNode choice) {
        JsonNode delta = choice.get("delta");
        if (delta != null && delta.isObject()) {
            // Reasoning before text: within one event the reasoning was produced first.
            // Some servers send both names with the same text: reasoning_content wins, never both.
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
            String refusal = text(delta, "refusal");   // OpenAI's refusals: the model's answer, shown as text
            if (refusal != null) {
                ready.add(StreamChunk.message(refusal));
            }
            JsonNode calls = delta.get("tool_calls");
            if (calls != null && calls.isArray()) {
                for (JsonNode call : calls) {
                    acceptToolCall(call);
                }
            }
            // role, function_call: ignored
        }
        JsonNode reason = choice.get("finish_reason");
        if (reason != null && reason.isTextual() && !reason.asText().isEmpty()) {
            finishReason = reason.asText();
        }
    }

    /**
     * One entry of {@code delta.tool_calls}: the first for a call carries its id and name, later
     * ones more of its arguments. Servers that leave out {@code index} (some send each call
     * whole in one delta) get one: a new call for each id, else the last call.
     */
    private void acceptToolCall(JsonNode call) {
        if (!call.isObject()) {
            return;
        }
        String id = text(call, "id");
        int index = call.path("index").isIntegralNumber() && call.get("index").asInt() >= 0
                ? call.get("index").asInt() : -1;
        JsonNode function = call.path("function");
        String name = text(function, "name");
        JsonNode arguments = function.get("arguments");
        String text = arguments == null || arguments.isNull() ? ""
                : arguments.isTextual() ? arguments.asText() : arguments.toString();  // Ollama may send an object
        addToolCall(index, id, name, text);
    }

    /** @param index the call's index as sent, or -1 when it had none that counts */
    private void addToolCall(int index, String id, String name, String arguments) {
        if (index < 0) {
            index = id != null ? toolCallsSeen : Math.max(toolCallsSeen - 1, 0);
        }
        toolCallsSeen = Math.max(toolCallsSeen, index + 1);
        ready.add(ProviderChunks.toolCall(new ProviderChunks.ToolCallDelta(index, id, name, arguments)));
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
        JsonNode t = root.get("timings");               // llama.cpp server: its own counters
        if (t != null && t.isObject()) {
            long prompt = count(t.get("prompt_n"));
            long cached = count(t.get("cache_n"));
            long predicted = count(t.get("predicted_n"));
            if (prompt >= 0 || predicted >= 0) {
                timingsUsage = new TokenUsage(saturatedSum(prompt, cached), Math.max(predicted, 0));
            }
        }
    }

    /** Prompt and cached tokens together, absent ones as 0; never negative (huge counts stop at the largest long). */
    private static long saturatedSum(long prompt, long cached) {
        long sum = Math.max(prompt, 0) + Math.max(cached, 0);
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static long count(JsonNode node) {
        // A number beyond a long (a broken server) counts as absent, not as its wrapped value.
        return node != null && node.isNumber() && node.canConvertToLong() && node.asLong() >= 0 ? node.asLong() : -1;
    }

    private static String text(JsonNode delta, String field) {
        JsonNode node = delta.get(field);
        return node != null && node.isTextual() && !node.asText().isEmpty() ? node.asText() : null;
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
            if (error != null && error.isTextual()) {
                message = error.asText();
            } else if (error != null && error.isObject()) {
                message = error.path("message").isTextual() ? error.get("message").asText() : null;
                kind = kindOf(error.get("code"), error.get("type"));
            }
        } catch (JsonProcessingException notJson) {
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
        String name = ((code != null && code.isTextual() ? code.asText() : "") + " "
                + (type != null && type.isTextual() ? type.asText() : "")).toLowerCase(Locale.ROOT);
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
        String problem = dev.bellows.stream.JsonSyntax.problem(data).orElse("it cannot be read");
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

    /** How many events the fast decoder read (the others went through a tree): for tests. */
    long fastDecoded() {
        return fastDecoded;
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
        fast.reset();
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
