package dev.bellows.http.internal;

import dev.bellows.http.SseEvent;
import dev.bellows.http.internal.JsonCursor;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.async.ByteArrayFeeder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.NullNode;
import java.io.IOException;
import java.util.Objects;

/**
 * The common part of the providers' stream decoders: reads events whose data is one JSON
 * object, one event at a time, with one non-blocking Jackson parser per stream that reads each
 * event's UTF-8 bytes in place and outlives the events (no parser made per chunk). A subclass
 * pulls the fields it uses out of the root object ({@link #readRoot()}) without building a
 * tree, with the helpers below, and keeps them as its result ({@link #clear()} empties it
 * before each event). A subclass may also read the usual events with a {@link JsonCursor}
 * ({@link #readUsual}), several times faster; whatever the cursor leaves is read with the parser.
 *
 * <p>What follows an event's object is checked: whitespace keeps the parser for the next
 * event; any other text is ignored (as a reader of the event as a tree ignores it) but may
 * have left the parser inside a value, so the next event gets a new one. A truncated or
 * malformed event throws, and the parser is let go of.
 *
 * <p>Not thread-safe: one per stream, used by its consuming thread. {@link #reset()} returns
 * the parser's buffers to Jackson's pool; it must be called when the stream ends.
 */
public abstract class JsonEventDecoder {

    private final ObjectMapper json;
    private final JsonCursor cursor = new JsonCursor();
    private JsonParser parser;
    private ByteArrayFeeder feeder;
    /** Where the last event's object ended, in the parser's offsets: what follows it is checked. */
    private long objectEnd;

    /** @param json the mapper whose factory makes the parser, and which reads unusual values as trees */
    protected JsonEventDecoder(ObjectMapper json) {
        this.json = Objects.requireNonNull(json, "json");
    }

    /** Thrown inside: the event ended before its object closed. */
    private static final class Truncated extends IOException {
        private static final Truncated INSTANCE = new Truncated();

        private Truncated() {
            super("the event ends inside its JSON object", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * Decodes an event whose data starts with an object (after JSON whitespace), its bytes
     * well-formed UTF-8; the subclass's result then holds it.
     *
     * @throws IOException when the event is not one JSON object (truncated, malformed)
     */
    public final void decode(SseEvent event) throws IOException {
        if (usual(EventBytes.of(event), event.dataLength())) {
            return;
        }
        long base = start();
        event.feedData(feeder);
        read();
        if (parser != null) {
            for (long i = objectEnd - base; i < event.dataLength(); i++) {
                if (!whitespace(event.dataByte((int) i))) {
                    reset();                 // text after the object: the parser may be inside it
                    break;
                }
            }
        }
    }

    /** As {@link #decode(SseEvent)}, for data given as UTF-8 bytes (the text of an unusual event, re-encoded). */
    public final void decode(byte[] utf8) throws IOException {
        if (usual(utf8, utf8.length)) {
            return;
        }
        long base = start();
        feeder.feedInput(utf8, 0, utf8.length);
        read();
        if (parser != null) {
            for (long i = objectEnd - base; i < utf8.length; i++) {
                if (!whitespace(utf8[(int) i])) {
                    reset();                 // text after the object: the parser may be inside it
                    break;
                }
            }
        }
    }

    /** Closes the parser, returning its buffers to the pool; the next event gets a new one. */
    public final void reset() {
        if (parser != null) {
            try {
                parser.close();
            } catch (JacksonException ignored) {
                // a parser over bytes in memory has nothing to fail on
            }
            parser = null;
            feeder = null;
        }
    }

    /** Empties the result before an event is read. */
    protected abstract void clear();

    /**
     * Reads the event with the cursor, at the start of its data, when the subclass has a reader
     * for the usual events: the fields it uses out of the root object (as {@link #readRoot()}
     * does with the general parser) up to the object's end. True when it did (only whitespace
     * may follow, which is checked); false, or {@link JsonCursor.Unusual} thrown, leaves the
     * event to the general parser and {@link #readRoot()} (after {@link #clear()} when it
     * threw). False means there is no such reader and nothing was read: the default.
     */
    protected boolean readUsual(JsonCursor cursor) throws JsonCursor.Unusual {
        return false;
    }

    /**
     * Reads the fields of the event's root object, whose {@code START_OBJECT} was just read, up
     * to and including its {@code END_OBJECT}: each field's name then value with {@link #next()},
     * values not wanted with {@link #skip}.
     */
    protected abstract void readRoot() throws IOException;

    /** The parser, on the token just read. */
    protected final JsonParser parser() {
        return parser;
    }

    /** The next token of the event; its end before the object closed means a truncated event. */
    protected final JsonToken next() throws IOException {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.NOT_AVAILABLE || token == null) {
            throw Truncated.INSTANCE;
        }
        return token;
    }

    /** The value whose first token was just read, as a tree node: only for values of an unusual kind. */
    protected final JsonNode node(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return NullNode.getInstance();
        }
        JsonNode node = json.readTree(parser);
        return node == null ? NullNode.getInstance() : node;
    }

    /**
     * Skips a value whose first token was just read. Not {@link JsonParser#skipChildren()}:
     * on a non-blocking parser that would spin on NOT_AVAILABLE at a truncated event.
     */
    protected final void skip(JsonToken first) throws IOException {
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

    /**
     * A token count whose first token was just read: a number of at least 0 that fits a long
     * (a float truncated, as Jackson 2's {@code canConvertToLong()} and {@code asLong()} took it);
     * else -1, as if absent.
     */
    protected final long count(JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = parser.getNumberType();
            if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                long count = parser.getLongValue();
                return count >= 0 ? count : -1;
            }
        }
        if (value != JsonToken.VALUE_NUMBER_INT && value != JsonToken.VALUE_NUMBER_FLOAT) {
            skip(value);
            return -1;
        }
        JsonNode count = node(value);         // beyond a long, or a float
        java.math.BigInteger whole = count.decimalValue().toBigInteger();   // a float truncated
        return whole.signum() >= 0 && whole.bitLength() < Long.SIZE ? whole.longValue() : -1;
    }

    /** Empties the result and reads the event with {@link #readUsual}, if it can be. */
    private boolean usual(byte[] utf8, int length) {
        clear();
        cursor.reset(utf8, length);
        try {
            if (readUsual(cursor)) {
                cursor.finish();
                return true;
            }
            return false;
        } catch (JsonCursor.Unusual unusual) {
            clear();                         // the reader may have kept part of the event
            return false;
        } finally {
            cursor.release();
        }
    }

    /** JSON's whitespace (RFC 8259): what may follow the object with the parser kept for the next event. */
    private static boolean whitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    /** Readies the parser for an event (the result is empty); the bytes it has taken before it (its offsets count on across events). */
    private long start() throws IOException {
        if (parser == null) {
            parser = json.createNonBlockingByteArrayParser();
            feeder = (ByteArrayFeeder) parser.nonBlockingInputFeeder();
            return 0;
        }
        return parser.currentLocation().getByteOffset();
    }

    private void read() throws IOException {
        try {
            if (next() != JsonToken.START_OBJECT) {
                throw Truncated.INSTANCE;        // callers only give data that starts with '{'
            }
            readRoot();
            objectEnd = parser.currentLocation().getByteOffset();
        } catch (JacksonException e) {
            reset();
            // Jackson 3's errors are unchecked; this decoder's contract is an IOException for an
            // event that is not one JSON object, whatever found it.
            throw new IOException(e.getOriginalMessage(), e);
        } catch (IOException | RuntimeException e) {
            reset();                         // the parser is mid-event: the next event gets a new one
            throw e;
        }
        // What follows the object in the event: whitespace (the parser then wants more input);
        // anything else is ignored, as a tree reader ignores it, but leaves this parser mid-value.
        JsonToken after;
        try {
            after = parser.nextToken();
        } catch (JacksonException e) {
            after = null;
        }
        if (after != JsonToken.NOT_AVAILABLE) {
            reset();
        }
    }
}
