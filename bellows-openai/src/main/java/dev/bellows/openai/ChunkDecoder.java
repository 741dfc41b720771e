package dev.bellows.openai;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.JsonCursor;
import dev.bellows.http.internal.JsonEventDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The one reader of {@code chat.completion.chunk} events: pulls the fields Bellows uses out
 * of each event without building a tree. One non-blocking Jackson parser per stream reads
 * each event's UTF-8 bytes in place ({@link JsonEventDecoder}), field names come from its symbol table (no string per
 * name), and the only strings made are the values kept (the delta's text, a call's id, name
 * and arguments, the finish reason, the response's id and model once).
 *
 * <p>Every event that is a JSON object is read here, whatever its shape: a value of an
 * unusual kind where the usual one is expected (an index that is text or a float, a count
 * beyond a long, arguments sent as an object as Ollama does) is read as a tree node and
 * taken exactly as a reader of the whole event as a tree takes it (Jackson's {@code asInt},
 * {@code canConvertToLong}, {@code toString}): the tests keep such a reader as the reference
 * and demand the same result for random events. A truncated or malformed event throws.
 *
 * <p>The usual event is read twice as fast with a {@link JsonCursor} ({@link #readUsual}),
 * which walks the same fields the same way as the parser's reader ({@link #readRoot}) and
 * leaves every value of an unusual kind, and anything that is not JSON, to it: the two readers
 * are side by side below, and must stay alike.
 *
 * <p>Not thread-safe: one per stream, used by its consuming thread. {@link #reset()} returns
 * the parser's buffers to Jackson's pool; it must be called when the stream ends.
 */
final class ChunkDecoder extends JsonEventDecoder {

    private static final byte[] ERROR = ascii("error");
    private static final byte[] CHOICES = ascii("choices");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] TIMINGS = ascii("timings");
    private static final byte[] ID = ascii("id");
    private static final byte[] MODEL = ascii("model");
    private static final byte[] INDEX = ascii("index");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] FINISH_REASON = ascii("finish_reason");
    private static final byte[] REASONING_CONTENT = ascii("reasoning_content");
    private static final byte[] REASONING = ascii("reasoning");
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] REFUSAL = ascii("refusal");
    private static final byte[] TOOL_CALLS = ascii("tool_calls");
    private static final byte[] FUNCTION = ascii("function");
    private static final byte[] NAME = ascii("name");
    private static final byte[] ARGUMENTS = ascii("arguments");
    private static final byte[] PROMPT_TOKENS = ascii("prompt_tokens");
    private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
    private static final byte[] PROMPT_N = ascii("prompt_n");
    private static final byte[] CACHE_N = ascii("cache_n");
    private static final byte[] PREDICTED_N = ascii("predicted_n");

    private static byte[] ascii(String name) {
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether the response's {@code id} and {@code model} are still wanted (read only until seen). */
    boolean wantResponse = true;

    // The result of the last decode: what the stream applies.
    /** A non-null {@code error} field was present. */
    boolean error;
    /** The choice with index 0 (a missing index counts as 0), or null. */
    Choice choice;
    /** {@code usage.prompt_tokens} and {@code completion_tokens}, -1 when absent or not counts; usage seen at all. */
    long promptTokens = -1;
    long completionTokens = -1;
    /** {@code timings} (llama.cpp): {@code prompt_n}, {@code cache_n}, {@code predicted_n}, -1 when absent. */
    long promptN = -1;
    long cacheN = -1;
    long predictedN = -1;
    /** The root's {@code id} and {@code model} when non-empty strings, while {@link #wantResponse}; else null. */
    String responseId;
    String responseModel;

    private final Choice scratch = new Choice();
    private final Choice kept = new Choice();

    /** @param json the mapper whose factory makes the parser, and which reads unusual values as trees */
    ChunkDecoder(ObjectMapper json) {
        super(json);
    }

    /** One choice of an event, as far as Bellows reads it. */
    static final class Choice {
        int index;
        boolean hasDelta;
        String reasoningContent;
        String reasoning;
        String content;
        String refusal;
        String finishReason;
        int calls;
        ToolCall[] toolCalls = new ToolCall[0];

        private void clear() {
            index = 0;
            hasDelta = false;
            clearDelta();
            finishReason = null;
        }

        private void clearDelta() {
            reasoningContent = null;
            reasoning = null;
            content = null;
            refusal = null;
            calls = 0;
        }

        private ToolCall nextCall() {
            if (calls == toolCalls.length) {
                toolCalls = Arrays.copyOf(toolCalls, Math.max(2, calls * 2));
            }
            ToolCall call = toolCalls[calls];
            if (call == null) {
                call = new ToolCall();
                toolCalls[calls] = call;
            }
            calls++;
            call.index = -1;
            call.id = null;
            call.name = null;
            call.arguments = "";
            return call;
        }

        private void copyFrom(Choice other) {
            index = other.index;
            hasDelta = other.hasDelta;
            reasoningContent = other.reasoningContent;
            reasoning = other.reasoning;
            content = other.content;
            refusal = other.refusal;
            finishReason = other.finishReason;
            calls = 0;
            for (int i = 0; i < other.calls; i++) {
                ToolCall from = other.toolCalls[i];
                ToolCall to = nextCall();
                to.index = from.index;
                to.id = from.id;
                to.name = from.name;
                to.arguments = from.arguments;
            }
        }
    }

    /** One entry of {@code delta.tool_calls}. */
    static final class ToolCall {
        /** The {@code index} when it was an integer of at least 0, else -1. */
        int index;
        String id;
        String name;
        String arguments;
    }

    @Override
    protected void clear() {
        error = false;
        choice = null;
        promptTokens = -1;
        completionTokens = -1;
        promptN = -1;
        cacheN = -1;
        predictedN = -1;
        responseId = null;
        responseModel = null;
    }

    @Override
    protected void readRoot() throws IOException {
        // Duplicate names: the last one counts, as in the tree.
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "error" -> {
                    error = value != JsonToken.VALUE_NULL;
                    skip(value);
                }
                case "choices" -> {
                    choice = null;
                    if (value == JsonToken.START_ARRAY) {
                        readChoices();
                    } else {
                        skip(value);
                    }
                }
                case "usage" -> {
                    promptTokens = -1;
                    completionTokens = -1;
                    if (value == JsonToken.START_OBJECT) {
                        readUsage();
                    } else {
                        skip(value);
                    }
                }
                case "timings" -> {
                    promptN = -1;
                    cacheN = -1;
                    predictedN = -1;
                    if (value == JsonToken.START_OBJECT) {
                        readTimings();
                    } else {
                        skip(value);
                    }
                }
                case "id" -> {
                    if (wantResponse) {
                        responseId = nonEmptyText(value);
                    } else {
                        skip(value);
                    }
                }
                case "model" -> {
                    if (wantResponse) {
                        responseModel = nonEmptyText(value);
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    // --- the usual event, with the cursor: the same fields, the same way, as the parser's reader below ---

    @Override
    protected boolean readUsual(JsonCursor in) throws JsonCursor.Unusual {
        // Duplicate names: the last one counts, as in the tree.
        for (boolean field = in.enterObject(); field; field = in.nextField()) {
            if (in.key(CHOICES)) {
                choice = null;
                if (in.atArray()) {
                    usualChoices(in);
                } else {
                    in.skip();
                }
            } else if (in.key(ID)) {
                if (wantResponse) {
                    responseId = nonEmptyText(in);
                } else {
                    in.skip();
                }
            } else if (in.key(MODEL)) {
                if (wantResponse) {
                    responseModel = nonEmptyText(in);
                } else {
                    in.skip();
                }
            } else if (in.key(USAGE)) {
                promptTokens = -1;
                completionTokens = -1;
                if (in.atObject()) {
                    for (boolean count = in.enterObject(); count; count = in.nextField()) {
                        if (in.key(PROMPT_TOKENS)) {
                            promptTokens = in.count();
                        } else if (in.key(COMPLETION_TOKENS)) {
                            completionTokens = in.count();
                        } else {
                            in.skip();
                        }
                    }
                } else {
                    in.skip();
                }
            } else if (in.key(TIMINGS)) {
                promptN = -1;
                cacheN = -1;
                predictedN = -1;
                if (in.atObject()) {
                    for (boolean count = in.enterObject(); count; count = in.nextField()) {
                        if (in.key(PROMPT_N)) {
                            promptN = in.count();
                        } else if (in.key(CACHE_N)) {
                            cacheN = in.count();
                        } else if (in.key(PREDICTED_N)) {
                            predictedN = in.count();
                        } else {
                            in.skip();
                        }
                    }
                } else {
                    in.skip();
                }
            } else if (in.key(ERROR)) {
                error = !in.readNull();
                if (error) {
                    in.skip();
                }
            } else {
                in.skip();
            }
        }
        return true;
    }

    private void usualChoices(JsonCursor in) throws JsonCursor.Unusual {
        for (boolean element = in.enterArray(); element; element = in.nextElement()) {
            if (!in.atObject()) {
                in.skip();
                continue;
            }
            scratch.clear();
            for (boolean field = in.enterObject(); field; field = in.nextField()) {
                if (in.key(INDEX)) {
                    scratch.index = in.atNumber() ? in.intValue() : unusual();   // text, say: as the tree's asInt takes it
                } else if (in.key(DELTA)) {
                    scratch.clearDelta();
                    scratch.hasDelta = in.atObject();
                    if (scratch.hasDelta) {
                        usualDelta(in, scratch);
                    } else {
                        in.skip();
                    }
                } else if (in.key(FINISH_REASON)) {
                    scratch.finishReason = nonEmptyText(in);
                } else {
                    in.skip();
                }
            }
            if (choice == null && scratch.index == 0) {
                kept.copyFrom(scratch);
                choice = kept;
            }
        }
    }

    private static void usualDelta(JsonCursor in, Choice into) throws JsonCursor.Unusual {
        for (boolean field = in.enterObject(); field; field = in.nextField()) {
            if (in.key(CONTENT)) {
                into.content = nonEmptyText(in);
            } else if (in.key(TOOL_CALLS)) {
                into.calls = 0;
                if (in.atArray()) {
                    usualToolCalls(in, into);
                } else {
                    in.skip();
                }
            } else if (in.key(REASONING_CONTENT)) {
                into.reasoningContent = nonEmptyText(in);
            } else if (in.key(REASONING)) {
                into.reasoning = nonEmptyText(in);
            } else if (in.key(REFUSAL)) {
                into.refusal = nonEmptyText(in);
            } else {
                in.skip();
            }
        }
    }

    private static void usualToolCalls(JsonCursor in, Choice into) throws JsonCursor.Unusual {
        for (boolean element = in.enterArray(); element; element = in.nextElement()) {
            if (!in.atObject()) {
                in.skip();                    // not a call: the tree reader skips it too
                continue;
            }
            ToolCall call = into.nextCall();
            for (boolean field = in.enterObject(); field; field = in.nextField()) {
                if (in.key(INDEX)) {
                    if (in.atNumber()) {
                        int index = in.intValue();   // a float or a long: left to the parser's reader
                        call.index = index >= 0 ? index : -1;
                    } else {
                        in.skip();            // text, null, ...: as if it were missing
                        call.index = -1;
                    }
                } else if (in.key(ID)) {
                    call.id = nonEmptyText(in);
                } else if (in.key(FUNCTION)) {
                    call.name = null;
                    call.arguments = "";
                    if (in.atObject()) {
                        for (boolean part = in.enterObject(); part; part = in.nextField()) {
                            if (in.key(NAME)) {
                                call.name = nonEmptyText(in);
                            } else if (in.key(ARGUMENTS)) {
                                // an object (Ollama) is written back as JSON text: the parser's reader does that
                                call.arguments = in.atString() ? in.string() : in.readNull() ? "" : unusualText();
                            } else {
                                in.skip();
                            }
                        }
                    } else {
                        in.skip();
                    }
                } else {
                    in.skip();
                }
            }
        }
    }

    /** The text of a string value that is not empty, else null (null, numbers, objects, ""). */
    private static String nonEmptyText(JsonCursor in) throws JsonCursor.Unusual {
        String text = in.textOrNull();
        return text == null || text.isEmpty() ? null : text;
    }

    private static int unusual() throws JsonCursor.Unusual {
        throw JsonCursor.unusual();
    }

    private static String unusualText() throws JsonCursor.Unusual {
        throw JsonCursor.unusual();
    }

    // --- any event, with the general parser ---

    private void readChoices() throws IOException {
        for (JsonToken token = next(); token != JsonToken.END_ARRAY; token = next()) {
            if (token != JsonToken.START_OBJECT) {
                skip(token);
                continue;
            }
            scratch.clear();
            readChoice(scratch);
            if (choice == null && scratch.index == 0) {
                kept.copyFrom(scratch);
                choice = kept;
            }
        }
    }

    private void readChoice(Choice into) throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "index" -> into.index = asInt(value, 0);
                case "delta" -> {
                    into.clearDelta();
                    into.hasDelta = value == JsonToken.START_OBJECT;
                    if (into.hasDelta) {
                        readDelta(into);
                    } else {
                        skip(value);
                    }
                }
                case "finish_reason" -> into.finishReason = nonEmptyText(value);
                default -> skip(value);
            }
        }
    }

    private void readDelta(Choice into) throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "reasoning_content" -> into.reasoningContent = nonEmptyText(value);
                case "reasoning" -> into.reasoning = nonEmptyText(value);
                case "content" -> into.content = nonEmptyText(value);
                case "refusal" -> into.refusal = nonEmptyText(value);
                case "tool_calls" -> {
                    into.calls = 0;
                    if (value == JsonToken.START_ARRAY) {
                        readToolCalls(into);
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void readToolCalls(Choice into) throws IOException {
        for (JsonToken token = next(); token != JsonToken.END_ARRAY; token = next()) {
            if (token != JsonToken.START_OBJECT) {
                skip(token);                  // not a call: the tree reader skips it too
                continue;
            }
            ToolCall call = into.nextCall();
            while (next() == JsonToken.PROPERTY_NAME) {
                String name = parser().currentName();
                JsonToken value = next();
                switch (name) {
                    case "id" -> call.id = nonEmptyText(value);
                    case "index" -> call.index = callIndex(value);
                    case "function" -> {
                        call.name = null;
                        call.arguments = "";
                        if (value == JsonToken.START_OBJECT) {
                            readFunction(call);
                        } else {
                            skip(value);
                        }
                    }
                    default -> skip(value);
                }
            }
        }
    }

    private void readFunction(ToolCall call) throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "name" -> call.name = nonEmptyText(value);
                case "arguments" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        call.arguments = parser().getString();
                    } else if (value == JsonToken.VALUE_NULL) {
                        call.arguments = "";
                    } else {
                        call.arguments = node(value).toString();  // an object (Ollama): written back as JSON text
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void readUsage() throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "prompt_tokens" -> promptTokens = count(value);
                case "completion_tokens" -> completionTokens = count(value);
                default -> skip(value);
            }
        }
    }

    private void readTimings() throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "prompt_n" -> promptN = count(value);
                case "cache_n" -> cacheN = count(value);
                case "predicted_n" -> predictedN = count(value);
                default -> skip(value);
            }
        }
    }

    /**
     * A choice's {@code index}: a plain int as it is; any other value as Jackson's
     * {@code JsonNode.asInt(otherwise)} takes it (a float truncated, a long cut to an int,
     * numeric text parsed, true as 1, anything else {@code otherwise}).
     */
    private int asInt(JsonToken value, int otherwise) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && parser().getNumberType() == JsonParser.NumberType.INT) {
            return parser().getIntValue();
        }
        return node(value).asInt(otherwise);
    }

    /** A tool call's {@code index}: an integral number of at least 0 (as an int), else -1 (as if missing). */
    private int callIndex(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && parser().getNumberType() == JsonParser.NumberType.INT) {
            int index = parser().getIntValue();
            return index >= 0 ? index : -1;
        }
        if (value != JsonToken.VALUE_NUMBER_INT) {
            skip(value);                      // a float, text, null, ...: as if it were missing
            return -1;
        }
        int index = node(value).bigIntegerValue().intValue();   // a long or beyond, cut to an int as Jackson 2's asInt() did
        return index >= 0 ? index : -1;
    }

    /** The text of a string value that is not empty, else null (null, numbers, objects, ""). */
    private String nonEmptyText(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            String text = parser().getString();
            return text.isEmpty() ? null : text;
        }
        skip(value);
        return null;
    }
}
