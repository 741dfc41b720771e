package dev.bellows.anthropic;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.JsonCursor;
import dev.bellows.http.internal.JsonEventDecoder;
import java.io.IOException;

/**
 * The one reader of Messages API stream events: pulls the fields Bellows uses out of each
 * event without building a tree. One non-blocking Jackson parser per stream reads each
 * event's UTF-8 bytes in place ({@link JsonEventDecoder}); the only strings made are the values kept (the API's names
 * are constants).
 *
 * <p>Every event that is a JSON object is read here, whatever its shape. Fields are kept as
 * a reader of the whole event as a tree would take them, which the tests keep as the
 * reference: "text" fields ({@code text}, {@code thinking}, {@code stop_reason}) only when
 * they are strings, else null; "name" fields ({@code type}s, {@code id}, {@code name},
 * {@code data}, {@code signature}, {@code partial_json}) as Jackson's
 * {@code asText("")} gives them; an index as {@code asInt(-1)}, a count when
 * {@code canConvertToLong()} and not negative. Values of an unusual kind are read as tree
 * nodes to get exactly that. A truncated or malformed event throws.
 *
 * <p>The usual event is read with a {@link JsonCursor} ({@link #readUsual}), which walks the
 * same fields the same way as the parser's reader ({@link #readRoot}) and leaves every value of
 * an unusual kind, and anything that is not JSON, to it: the two readers are side by side
 * below, and must stay alike.
 *
 * <p>Not thread-safe: one per stream, used by its consuming thread; {@link #reset()} returns
 * the parser's buffers to Jackson's pool and must be called when the stream ends.
 */
final class EventDecoder extends JsonEventDecoder {

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
    /** {@code message.id} and {@code message.model} (message_start), when non-empty strings; else null. */
    String messageId;
    String messageModel;

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

    /** @param json the mapper whose factory makes the parser, and which reads unusual values as trees */
    EventDecoder(ObjectMapper json) {
        super(json);
    }

    @Override
    protected void clear() {
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
        messageId = null;
        messageModel = null;
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

    // --- the usual event, with the cursor: the same fields, the same way, as the parser's reader below ---

    private static final byte[] TYPE = ascii("type");
    private static final byte[] INDEX = ascii("index");
    private static final byte[] CONTENT_BLOCK = ascii("content_block");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] MESSAGE = ascii("message");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] ERROR = ascii("error");
    private static final byte[] TEXT = ascii("text");
    private static final byte[] THINKING = ascii("thinking");
    private static final byte[] DATA = ascii("data");
    private static final byte[] ID = ascii("id");
    private static final byte[] NAME = ascii("name");
    private static final byte[] SIGNATURE = ascii("signature");
    private static final byte[] PARTIAL_JSON = ascii("partial_json");
    private static final byte[] STOP_REASON = ascii("stop_reason");
    private static final byte[] MODEL = ascii("model");
    private static final byte[] INPUT_TOKENS = ascii("input_tokens");
    private static final byte[] OUTPUT_TOKENS = ascii("output_tokens");

    private static byte[] ascii(String name) {
        return name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Override
    protected boolean readUsual(JsonCursor in) throws JsonCursor.Unusual {
        // Duplicate names: the last one counts, as in the tree.
        for (boolean field = in.enterObject(); field; field = in.nextField()) {
            if (in.key(TYPE)) {
                // not text: the tree takes the SSE event name instead
                type = in.atString() ? in.word(WORDS) : skipped(in);
            } else if (in.key(INDEX)) {
                index = in.atNumber() ? in.intValue() : unusual();   // any other value: as the tree's asInt(-1) takes it
            } else if (in.key(DELTA)) {
                clearDelta();
                if (in.atObject()) {
                    for (boolean part = in.enterObject(); part; part = in.nextField()) {
                        if (in.key(TYPE)) {
                            deltaType = word(in);
                        } else if (in.key(TEXT)) {
                            deltaText = in.textOrNull();
                        } else if (in.key(PARTIAL_JSON)) {
                            deltaPartialJson = text(in);
                        } else if (in.key(THINKING)) {
                            deltaThinking = in.textOrNull();
                        } else if (in.key(SIGNATURE)) {
                            deltaSignature = text(in);
                        } else if (in.key(STOP_REASON)) {
                            stopReason = in.atString() ? in.word(WORDS) : in.textOrNull();
                        } else {
                            in.skip();
                        }
                    }
                } else {
                    in.skip();
                }
            } else if (in.key(CONTENT_BLOCK)) {
                clearBlock();
                if (in.atObject()) {
                    for (boolean part = in.enterObject(); part; part = in.nextField()) {
                        if (in.key(TYPE)) {
                            blockType = word(in);
                        } else if (in.key(TEXT)) {
                            blockText = in.textOrNull();
                        } else if (in.key(THINKING)) {
                            blockThinking = in.textOrNull();
                        } else if (in.key(DATA)) {
                            blockData = text(in);
                        } else if (in.key(ID)) {
                            blockId = text(in);
                        } else if (in.key(NAME)) {
                            blockName = text(in);
                        } else {
                            in.skip();
                        }
                    }
                } else {
                    in.skip();
                }
            } else if (in.key(MESSAGE)) {
                messageUsage = false;
                messageInput = -1;
                messageOutput = -1;
                messageId = null;
                messageModel = null;
                if (in.atObject()) {
                    for (boolean part = in.enterObject(); part; part = in.nextField()) {
                        if (in.key(USAGE)) {
                            messageUsage = in.atObject();
                            messageInput = -1;
                            messageOutput = -1;
                            if (messageUsage) {
                                usualUsage(in, true);
                            } else {
                                in.skip();
                            }
                        } else if (in.key(ID)) {
                            messageId = nonEmpty(in.textOrNull());
                        } else if (in.key(MODEL)) {
                            messageModel = nonEmpty(in.textOrNull());
                        } else {
                            in.skip();
                        }
                    }
                } else {
                    in.skip();
                }
            } else if (in.key(USAGE)) {
                usage = in.atObject();
                usageInput = -1;
                usageOutput = -1;
                if (usage) {
                    usualUsage(in, false);
                } else {
                    in.skip();
                }
            } else if (in.key(ERROR)) {
                errorType = null;
                if (in.atObject()) {
                    for (boolean part = in.enterObject(); part; part = in.nextField()) {
                        if (in.key(TYPE)) {
                            errorType = word(in);
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
        return true;
    }

    private void usualUsage(JsonCursor in, boolean ofMessage) throws JsonCursor.Unusual {
        for (boolean part = in.enterObject(); part; part = in.nextField()) {
            if (in.key(INPUT_TOKENS)) {
                if (ofMessage) {
                    messageInput = in.count();
                } else {
                    usageInput = in.count();
                }
            } else if (in.key(OUTPUT_TOKENS)) {
                if (ofMessage) {
                    messageOutput = in.count();
                } else {
                    usageOutput = in.count();
                }
            } else {
                in.skip();
            }
        }
    }

    /** A name field ({@code type}): a known name as its constant; a value that is not a string is the parser's (asText). */
    private static String word(JsonCursor in) throws JsonCursor.Unusual {
        return in.atString() ? in.word(WORDS) : unusualText();
    }

    /** A string's text; a value that is not a string is the parser's (asText gives a number's digits, "" for null). */
    private static String text(JsonCursor in) throws JsonCursor.Unusual {
        return in.atString() ? in.string() : unusualText();
    }

    private static String skipped(JsonCursor in) throws JsonCursor.Unusual {
        in.skip();
        return null;
    }

    private static int unusual() throws JsonCursor.Unusual {
        throw JsonCursor.unusual();
    }

    private static String unusualText() throws JsonCursor.Unusual {
        throw JsonCursor.unusual();
    }

    // --- any event, with the general parser ---

    @Override
    protected void readRoot() throws IOException {
        // Duplicate names: the last one counts, as in the tree.
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> {
                    // not text: the tree takes the SSE event name instead
                    type = value == JsonToken.VALUE_STRING ? word() : null;
                    skip(value);
                }
                case "index" -> index = asInt(value);
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
                    messageId = null;
                    messageModel = null;
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
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> blockType = word(value);
                case "text" -> blockText = textOrNull(value);
                case "thinking" -> blockThinking = textOrNull(value);
                case "data" -> blockData = asText(value);
                case "id" -> blockId = asText(value);
                case "name" -> blockName = asText(value);
                default -> skip(value);
            }
        }
    }

    private void readDelta() throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "type" -> deltaType = word(value);
                case "text" -> deltaText = textOrNull(value);
                case "thinking" -> deltaThinking = textOrNull(value);
                case "signature" -> deltaSignature = asText(value);
                case "partial_json" -> deltaPartialJson = asText(value);
                case "stop_reason" -> stopReason = value == JsonToken.VALUE_STRING ? word() : textOrNull(value);
                default -> skip(value);
            }
        }
    }

    private void readMessage() throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            switch (name) {
                case "usage" -> {
                    messageUsage = value == JsonToken.START_OBJECT;
                    messageInput = -1;
                    messageOutput = -1;
                    if (messageUsage) {
                        readUsage(true);
                    } else {
                        skip(value);
                    }
                }
                case "id" -> messageId = nonEmpty(textOrNull(value));
                case "model" -> messageModel = nonEmpty(textOrNull(value));
                default -> skip(value);
            }
        }
    }

    private void readUsage(boolean ofMessage) throws IOException {
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
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
        while (next() == JsonToken.PROPERTY_NAME) {
            String name = parser().currentName();
            JsonToken value = next();
            if (name.equals("type")) {
                errorType = word(value);
            } else {
                skip(value);
            }
        }
    }

    /** A name field ({@code type}), as {@link #asText}: a known name as its constant, so that no string is made. */
    private String word(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return word();
        }
        return asText(value);
    }

    /** The current string value; one of {@link #WORDS} when it is one. */
    private String word() throws IOException {
        char[] chars = parser().getStringCharacters();
        int offset = parser().getStringOffset();
        int length = parser().getStringLength();
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
        return parser().getString();
    }

    /** A string's text; null for any other value. */
    private String textOrNull(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return parser().getString();
        }
        skip(value);
        return null;
    }

    private static String nonEmpty(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    /**
     * A string's text; any other value as Jackson's {@code asText("")} gives it (a number's
     * digits, {@code true}, and "" for null, objects and arrays).
     */
    private String asText(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return parser().getString();
        }
        return node(value).asString("");
    }

    /** An index: a plain int as it is; any other value as Jackson's {@code asInt(-1)} takes it. */
    private int asInt(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && parser().getNumberType() == JsonParser.NumberType.INT) {
            return parser().getIntValue();
        }
        return node(value).asInt(-1);
    }
}
