package dev.bellows.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import dev.bellows.http.SseEvent;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads the fields Bellows uses out of one {@code chat.completion.chunk} event without
 * building a tree: one non-blocking Jackson parser per stream reads each event's UTF-8 bytes
 * in place, field names come from its symbol table (no string per name), and the only strings
 * made are the values kept (the delta's text, a call's id, name and arguments, the finish
 * reason).
 *
 * <p>It handles the shape servers send. Anything else (a truncated or malformed event, invalid
 * UTF-8, a number that is not a plain int or long, arguments sent as an object, ...) makes
 * {@link #decode} answer false or throw, having changed nothing the stream sees, and the
 * caller decodes the event as a tree instead: the tree is the reference for what an event
 * means, this is a faster way to the same answer.
 *
 * <p>Not thread-safe: one per stream, used by its consuming thread. {@link #reset()} returns
 * the parser's buffers to Jackson's pool; it must be called when the stream ends.
 */
final class FastChunkDecoder {

    private final JsonFactory factory;
    private JsonParser parser;
    private ByteArrayFeeder feeder;

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

    private final Choice scratch = new Choice();
    private final Choice kept = new Choice();

    FastChunkDecoder(JsonFactory factory) {
        this.factory = factory;
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

    /** Thrown inside: the event is not of the shape this reads; the tree decides. */
    private static final class Unusual extends IOException {
        private static final Unusual INSTANCE = new Unusual();

        private Unusual() {
            super("not the usual shape", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * Decodes an event whose data starts with an object.
     *
     * @return true when the result fields hold the event; false (or an exception) when the
     *         caller must decode it as a tree
     */
    boolean decode(SseEvent event) throws IOException {
        clearResult();
        if (parser == null) {
            parser = factory.createNonBlockingByteArrayParser();
            feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
        }
        event.feedData(feeder);
        try {
            if (next() != JsonToken.START_OBJECT) {
                throw Unusual.INSTANCE;
            }
            readRoot();
        } catch (IOException e) {
            reset();                         // the parser is mid-event: the next event gets a new one
            throw e;
        }
        // What follows the object in the event: whitespace (the parser then wants more input);
        // anything else was ignored by the tree reader too, but leaves this parser mid-value.
        JsonToken after;
        try {
            after = parser.nextToken();
        } catch (IOException e) {
            after = null;
        }
        if (after != JsonToken.NOT_AVAILABLE) {
            reset();
        }
        return true;
    }

    /** Closes the parser, returning its buffers to the pool; the next event gets a new one. */
    void reset() {
        if (parser != null) {
            try {
                parser.close();
            } catch (IOException ignored) {
                // a parser over bytes in memory has nothing to fail on
            }
            parser = null;
            feeder = null;
        }
    }

    private void clearResult() {
        error = false;
        choice = null;
        promptTokens = -1;
        completionTokens = -1;
        promptN = -1;
        cacheN = -1;
        predictedN = -1;
    }

    /** The next token of the event; its end before the value closed means a truncated event. */
    private JsonToken next() throws IOException {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.NOT_AVAILABLE || token == null) {
            throw Unusual.INSTANCE;
        }
        return token;
    }

    private void readRoot() throws IOException {
        // Duplicate names: the last one counts, as in the tree.
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
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
                default -> skip(value);
            }
        }
    }

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
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "index" -> into.index = intValue(value);
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
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
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
            while (next() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = next();
                switch (name) {
                    case "id" -> call.id = nonEmptyText(value);
                    case "index" -> {
                        if (value == JsonToken.VALUE_NUMBER_INT) {
                            int index = intValue(value);
                            call.index = index >= 0 ? index : -1;
                        } else if (value == JsonToken.VALUE_NUMBER_FLOAT) {
                            throw Unusual.INSTANCE;
                        } else {
                            call.index = -1;      // null, text, ...: as if it were missing
                            skip(value);
                        }
                    }
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
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "name" -> call.name = nonEmptyText(value);
                case "arguments" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        call.arguments = parser.getText();
                    } else if (value == JsonToken.VALUE_NULL) {
                        call.arguments = "";
                    } else {
                        throw Unusual.INSTANCE;  // an object (Ollama): the tree writes it back as text
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void readUsage() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "prompt_tokens" -> promptTokens = count(value);
                case "completion_tokens" -> completionTokens = count(value);
                default -> skip(value);
            }
        }
    }

    private void readTimings() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "prompt_n" -> promptN = count(value);
                case "cache_n" -> cacheN = count(value);
                case "predicted_n" -> predictedN = count(value);
                default -> skip(value);
            }
        }
    }

    /** A plain int; every other kind of value is left to the tree's conversions. */
    private int intValue(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        throw Unusual.INSTANCE;
    }

    /** A token count: -1 unless a number of at least 0. */
    private long count(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = parser.getNumberType();
            if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                throw Unusual.INSTANCE;
            }
            long count = parser.getLongValue();
            return count >= 0 ? count : -1;
        }
        if (value == JsonToken.VALUE_NUMBER_FLOAT) {
            throw Unusual.INSTANCE;
        }
        skip(value);
        return -1;
    }

    /** The text of a string value that is not empty, else null (null, numbers, objects, ""). */
    private String nonEmptyText(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            String text = parser.getText();
            return text.isEmpty() ? null : text;
        }
        skip(value);
        return null;
    }

    /**
     * Skips a value whose first token was just read. Not {@link JsonParser#skipChildren()}:
     * on a non-blocking parser that would spin on NOT_AVAILABLE at a truncated event.
     */
    private void skip(JsonToken first) throws IOException {
        if (first != JsonToken.START_OBJECT && first != JsonToken.START_ARRAY) {
            return;
        }
        int depth = 1;
        while (depth > 0) {
            JsonToken token = next();
            if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                depth++;
            } else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                depth--;
            }
        }
    }
}
