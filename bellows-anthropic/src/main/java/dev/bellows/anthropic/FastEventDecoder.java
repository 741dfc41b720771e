package dev.bellows.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import dev.bellows.http.SseEvent;
import java.io.IOException;

/**
 * Reads the fields Bellows uses out of one Messages API stream event without building a
 * tree: one non-blocking Jackson parser per stream reads each event's UTF-8 bytes in place;
 * the only strings made are the values kept.
 *
 * <p>It handles the shape the API sends. A value of another kind than expected where one is
 * read (a number where text is, null, a float or a huge number as an index or a count), a
 * truncated or malformed event, makes {@link #decode} throw, having changed nothing the
 * stream sees, and the caller reads the event as a tree instead, the reference for what an
 * event means.
 *
 * <p>Not thread-safe: one per stream, used by its consuming thread; {@link #reset()} returns
 * the parser's buffers to Jackson's pool and must be called when the stream ends.
 */
final class FastEventDecoder {

    /** A field read as text: absent (null), or the text. */
    String type;
    /** {@code index}, -1 when absent. */
    int index;
    /** {@code content_block}: its type, text, thinking, data, id and name. */
    String blockType;
    String blockText;
    String blockThinking;
    String blockData;
    String blockId;
    String blockName;
    /** {@code delta}: its type, text, thinking, signature, partial_json and stop_reason. */
    String deltaType;
    String deltaText;
    String deltaThinking;
    String deltaSignature;
    String deltaPartialJson;
    String stopReason;
    /** {@code message.usage} (message_start) and {@code usage}: whether an object, and its counts (-1 when absent). */
    boolean messageUsage;
    long messageInput;
    long messageOutput;
    boolean usage;
    long usageInput;
    long usageOutput;
    /** {@code error.type}. */
    String errorType;

    /**
     * The names every event carries (event, block and delta types, stop reasons, error types):
     * read as these constants instead of a new string each per event.
     */
    private static final String[] WORDS = {
        "content_block_delta", "text_delta", "content_block_start", "content_block_stop", "input_json_delta",
        "thinking_delta", "signature_delta", "message_start", "message_delta", "message_stop", "ping", "text",
        "thinking", "redacted_thinking", "tool_use", "end_turn", "max_tokens", "stop_sequence", "pause_turn",
        "refusal", "error", "overloaded_error", "api_error", "rate_limit_error"
    };

    private final JsonFactory factory;
    private JsonParser parser;
    private ByteArrayFeeder feeder;

    FastEventDecoder(JsonFactory factory) {
        this.factory = factory;
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

    /** Reads an event whose data starts with an object; throws when the tree must read it. */
    void decode(SseEvent event) throws IOException {
        clear();
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
            reset();
            throw e;
        }
        JsonToken after;
        try {
            after = parser.nextToken();
        } catch (IOException e) {
            after = null;
        }
        if (after != JsonToken.NOT_AVAILABLE) {
            reset();                         // text after the object (ignored, as the tree does)
        }
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

    private void clear() {
        type = null;
        index = -1;
        clearBlock();
        clearDelta();
        messageUsage = false;
        messageInput = -1;
        messageOutput = -1;
        usage = false;
        usageInput = -1;
        usageOutput = -1;
        errorType = null;
    }

    private void clearBlock() {
        blockType = null;
        blockText = null;
        blockThinking = null;
        blockData = null;
        blockId = null;
        blockName = null;
    }

    private void clearDelta() {
        deltaType = null;
        deltaText = null;
        deltaThinking = null;
        deltaSignature = null;
        deltaPartialJson = null;
        stopReason = null;
    }

    private JsonToken next() throws IOException {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.NOT_AVAILABLE || token == null) {
            throw Unusual.INSTANCE;           // the event ended inside its object
        }
        return token;
    }

    private void readRoot() throws IOException {
        // Duplicate names: the last one counts, as in the tree.
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> {
                    // not text: the tree takes the SSE event name instead
                    type = value == JsonToken.VALUE_STRING ? word() : null;
                    skip(value);
                }
                case "index" -> index = intValue(value);
                case "content_block" -> {
                    clearBlock();
                    if (value == JsonToken.START_OBJECT) {
                        readBlock();
                    } else {
                        skip(value);
                    }
                }
                case "delta" -> {
                    clearDelta();
                    if (value == JsonToken.START_OBJECT) {
                        readDelta();
                    } else {
                        skip(value);
                    }
                }
                case "message" -> {
                    messageUsage = false;
                    messageInput = -1;
                    messageOutput = -1;
                    if (value == JsonToken.START_OBJECT) {
                        readMessage();
                    } else {
                        skip(value);
                    }
                }
                case "usage" -> {
                    usage = value == JsonToken.START_OBJECT;
                    usageInput = -1;
                    usageOutput = -1;
                    if (usage) {
                        readUsage(false);
                    } else {
                        skip(value);
                    }
                }
                case "error" -> {
                    errorType = null;
                    if (value == JsonToken.START_OBJECT) {
                        readError();
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void readBlock() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> blockType = word(value);
                case "text" -> blockText = text(value);
                case "thinking" -> blockThinking = text(value);
                case "data" -> blockData = text(value);
                case "id" -> blockId = text(value);
                case "name" -> blockName = text(value);
                default -> skip(value);
            }
        }
    }

    private void readDelta() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> deltaType = word(value);
                case "text" -> deltaText = text(value);
                case "thinking" -> deltaThinking = text(value);
                case "signature" -> deltaSignature = text(value);
                case "partial_json" -> deltaPartialJson = text(value);
                case "stop_reason" -> stopReason = word(value);
                default -> skip(value);
            }
        }
    }

    private void readMessage() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            if (name.equals("usage")) {
                messageUsage = value == JsonToken.START_OBJECT;
                messageInput = -1;
                messageOutput = -1;
                if (messageUsage) {
                    readUsage(true);
                    continue;
                }
            }
            skip(value);
        }
    }

    private void readUsage(boolean ofMessage) throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            switch (name) {
                case "input_tokens" -> {
                    if (ofMessage) {
                        messageInput = count(value);
                    } else {
                        usageInput = count(value);
                    }
                }
                case "output_tokens" -> {
                    if (ofMessage) {
                        messageOutput = count(value);
                    } else {
                        usageOutput = count(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void readError() throws IOException {
        while (next() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = next();
            if (name.equals("type")) {
                errorType = word(value);
            } else {
                skip(value);
            }
        }
    }

    /** As {@link #text}, for the API's names: the constant when known, so that no string is made. */
    private String word(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return word();
        }
        throw Unusual.INSTANCE;
    }

    /** The current string value; one of {@link #WORDS} when it is one. */
    private String word() throws IOException {
        char[] chars = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        words:
        for (String word : WORDS) {
            if (word.length() != length) {
                continue;
            }
            for (int i = 0; i < length; i++) {
                if (word.charAt(i) != chars[offset + i]) {
                    continue words;
                }
            }
            return word;
        }
        return parser.getText();
    }

    /** Text, or the tree decides (it turns numbers and the like into text its own way). */
    private String text(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        throw Unusual.INSTANCE;
    }

    private int intValue(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        throw Unusual.INSTANCE;
    }

    /** A count of at least 0; -1 for a negative one or one that is not a number (kept from before by the caller). */
    private long count(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType kind = parser.getNumberType();
            if (kind != JsonParser.NumberType.INT && kind != JsonParser.NumberType.LONG) {
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

    /** Skips a value whose first token was just read (not skipChildren: it spins at a truncated event). */
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
