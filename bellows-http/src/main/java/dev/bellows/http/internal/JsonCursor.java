package dev.bellows.http.internal;

import java.nio.charset.StandardCharsets;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): a reader
 * of one JSON value held whole in UTF-8 bytes, for the usual events of a stream, which it
 * reads several times faster than a general parser. A decoder walks the event with it,
 * pulling out the fields it uses and skipping the rest; whatever the cursor does not take as
 * plainly as the general parser would (an escaped name, a number that is not a small integer
 * where one is read, text that is not JSON, a nesting deeper than {@link #MAX_DEPTH}, a
 * string longer than {@link #MAX_STRING}) throws {@link Unusual}, and the decoder reads the
 * event again with the general parser, which decides what it means or why it is malformed.
 * So a decoder's results from the cursor are, by construction, the general parser's or none.
 *
 * <p>Everything skipped is checked as JSON (strings with their escapes, numbers, literals,
 * nesting). The bytes must be well-formed UTF-8 (the caller checks); they are never changed.
 * Not thread-safe: one per decoder, reused for every event.
 */
public final class JsonCursor {

    /** Deeper values are left to the general parser (whose own limit is far higher). */
    static final int MAX_DEPTH = 64;
    /** Longer strings are left to the general parser (which has a limit of its own on length). */
    static final int MAX_STRING = 1 << 20;
    /** Longer numbers are left to the general parser (which has a limit of its own on length). */
    private static final int MAX_NUMBER = 100;
    /** Longer names are left to the general parser (which has a limit of its own on length). */
    private static final int MAX_NAME = 1000;

    /**
     * The event is not one this cursor reads as the general parser would: it must be read
     * with that. Thrown without a stack trace, one instance.
     */
    public static final class Unusual extends Exception {
        private static final Unusual INSTANCE = new Unusual();

        private Unusual() {
            super("left to the general parser", null, false, false);
        }
    }

    /** The bytes a string holds as they are: not its quote, not a backslash, not a control character. */
    private static final boolean[] PLAIN = new boolean[256];

    static {
        for (int b = 0; b < 256; b++) {
            PLAIN[b] = b >= 0x20 && b != '"' && b != '\\';
        }
    }

    private byte[] bytes;
    private int end;
    private int pos;
    private int keyStart;
    private int keyLength;
    /** Where a string with escapes is put together (kept: most events have none). */
    private final StringBuilder escaped = new StringBuilder();

    /** Reads {@code bytes[0, length)} from its start; the bytes are read, never changed. */
    public void reset(byte[] bytes, int length) {
        this.bytes = bytes;
        this.end = length;
        this.pos = 0;
    }

    /** Lets go of the bytes (so that a kept cursor does not keep the last event's). */
    public void release() {
        bytes = null;
    }

    /** What a decoder throws when a value is of a kind it leaves to the general parser. */
    public static Unusual unusual() {
        return Unusual.INSTANCE;
    }

    /** Skips JSON whitespace. */
    private void space() {
        while (pos < end) {
            byte b = bytes[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return;
            }
            pos++;
        }
    }

    private byte peek() throws Unusual {
        if (pos >= end) {
            throw unusual();
        }
        return bytes[pos];
    }

    private void expect(byte b) throws Unusual {
        if (pos >= end || bytes[pos] != b) {
            throw unusual();
        }
        pos++;
    }

    /** After whitespace, the start of an object: true when it has a field, read up to its value (see {@link #key}). */
    public boolean enterObject() throws Unusual {
        space();
        expect((byte) '{');
        space();
        if (peek() == '}') {
            pos++;
            return false;
        }
        readKey();
        return true;
    }

    /**
     * After a field's value: true when another field follows, read up to its value; false at
     * the object's end, which is then read.
     */
    public boolean nextField() throws Unusual {
        space();
        byte b = peek();
        pos++;
        if (b == '}') {
            return false;
        }
        if (b != ',') {
            throw unusual();
        }
        space();
        readKey();
        return true;
    }

    /** A field's name in quotes (no escapes: an escaped name is unusual), the colon, and the whitespace after it. */
    private void readKey() throws Unusual {
        expect((byte) '"');
        int start = pos;
        byte[] in = bytes;
        int at = start;
        int stop = end;
        // (the loops over bytes read the array directly: this is the hot path of every event)
        while (at < stop && PLAIN[in[at] & 0xFF]) {
            at++;
        }
        if (at >= stop || in[at] != '"') {
            throw unusual();                         // unterminated, escaped, or a control character
        }
        pos = at;
        keyStart = start;
        keyLength = pos - start;
        if (keyLength > MAX_NAME) {
            throw unusual();
        }
        pos++;
        space();
        expect((byte) ':');
        space();
    }

    /** Whether the field just read is named {@code name} (ASCII). */
    public boolean key(byte[] name) {
        if (name.length != keyLength) {
            return false;
        }
        for (int i = 0; i < keyLength; i++) {
            if (bytes[keyStart + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** At a value: true when it is an array with an element, read up to it; an empty array is read. */
    public boolean enterArray() throws Unusual {
        expect((byte) '[');
        space();
        if (peek() == ']') {
            pos++;
            return false;
        }
        return true;
    }

    /** After an element: true when another follows, read up to it; false at the array's end, which is then read. */
    public boolean nextElement() throws Unusual {
        space();
        byte b = peek();
        pos++;
        if (b == ']') {
            return false;
        }
        if (b != ',') {
            throw unusual();
        }
        space();
        return true;
    }

    /** Whether the value here is an object. */
    public boolean atObject() throws Unusual {
        return peek() == '{';
    }

    /** Whether the value here is an array. */
    public boolean atArray() throws Unusual {
        return peek() == '[';
    }

    /** Whether the value here is a string. */
    public boolean atString() throws Unusual {
        return peek() == '"';
    }

    /** Whether the value here is a number. */
    public boolean atNumber() throws Unusual {
        byte b = peek();
        return b == '-' || (b >= '0' && b <= '9');
    }

    /** Whether the value here is {@code null}; it is read if so. */
    public boolean readNull() throws Unusual {
        if (peek() != 'n') {
            return false;
        }
        literal(NULL);
        return true;
    }

    /** After the root value: only whitespace may follow. */
    public void finish() throws Unusual {
        space();
        if (pos != end) {
            throw unusual();
        }
    }

    /** The string value here, decoded as the general parser decodes it. */
    public String string() throws Unusual {
        expect((byte) '"');
        int start = pos;
        byte[] in = bytes;
        int at = start;
        int stop = end;
        int high = 0;                                // any byte above ASCII sets the sign bit
        while (at < stop && PLAIN[in[at] & 0xFF]) {
            high |= in[at];
            at++;
        }
        pos = at;
        if (at >= stop || (in[at] != '"' && in[at] != '\\')) {
            throw unusual();                         // unterminated, or a raw control character: not JSON
        }
        if (in[at] == '\\') {
            return escapedString(start);
        }
        boolean ascii = high >= 0;
        int length = pos - start;
        if (length > MAX_STRING) {
            throw unusual();
        }
        pos++;
        return new String(bytes, start, length, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }

    /** The rest of a string from {@code start}, where an escape was met at {@code pos}. */
    private String escapedString(int start) throws Unusual {
        StringBuilder text = escaped;
        text.setLength(0);
        byte[] in = bytes;
        int run = start;                             // raw bytes not yet appended start here
        while (in[pos] == '\\') {
            appendRaw(text, run, pos);
            pos++;
            text.append(escape());
            run = pos;
            int at = pos;
            int stop = end;
            while (at < stop && PLAIN[in[at] & 0xFF]) {
                at++;
            }
            pos = at;
            if (at >= stop || (in[at] != '"' && in[at] != '\\')) {
                throw unusual();                     // unterminated, or a raw control character
            }
        }
        appendRaw(text, run, pos);                   // up to the closing quote
        pos++;
        if (text.length() > MAX_STRING) {
            throw unusual();
        }
        return text.toString();
    }

    /** Raw bytes between escapes: an escape is ASCII, so a run never cuts a UTF-8 sequence. */
    private void appendRaw(StringBuilder text, int from, int to) {
        boolean ascii = true;
        for (int i = from; i < to && ascii; i++) {
            ascii = bytes[i] >= 0;
        }
        if (ascii) {
            for (int i = from; i < to; i++) {
                text.append((char) bytes[i]);
            }
        } else {
            text.append(new String(bytes, from, to - from, StandardCharsets.UTF_8));
        }
    }

    /** The character of the escape after a backslash (a lone surrogate from {@code \\u} is kept as it is, as the general parser keeps it). */
    private char escape() throws Unusual {
        byte b = peek();
        pos++;
        return switch (b) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '/' -> '/';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> {
                int code = 0;
                for (int i = 0; i < 4; i++) {
                    code = code << 4 | hex(peek());
                    pos++;
                }
                yield (char) code;
            }
            default -> throw unusual();
        };
    }

    private static int hex(byte b) throws Unusual {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        throw unusual();
    }

    /**
     * The number here when it is an integer of at most 18 digits (no fraction, no exponent),
     * which the general parser reads as an int or a long; any other number is unusual.
     */
    public long integer() throws Unusual {
        boolean negative = bytes[pos] == '-';
        if (negative) {
            pos++;
        }
        int digits = pos;
        long value = 0;
        while (pos < end && bytes[pos] >= '0' && bytes[pos] <= '9') {
            value = value * 10 + (bytes[pos] - '0');
            pos++;
        }
        int count = pos - digits;
        if (count == 0 || count > 18 || (count > 1 && bytes[digits] == '0')) {
            throw unusual();                         // no digit, too many, or a leading zero
        }
        if (pos < end && (bytes[pos] == '.' || bytes[pos] == 'e' || bytes[pos] == 'E')) {
            throw unusual();                         // a float: its meaning is the general parser's
        }
        return negative ? -value : value;
    }

    /** The string value here, decoded; any other value is skipped and null. */
    public String textOrNull() throws Unusual {
        if (atString()) {
            return string();
        }
        skip();
        return null;
    }

    /**
     * The string value here, as the one of {@code words} (ASCII, no escapes) whose bytes it
     * is, the same instance, so that no string is made for the names a stream repeats; any
     * other string decoded as {@link #string()}.
     */
    public String word(String[] words) throws Unusual {
        int start = pos + 1;                         // after the opening quote
        byte[] in = bytes;
        int at = start;
        int stop = end;
        while (at < stop && PLAIN[in[at] & 0xFF]) {
            at++;
        }
        if (at < stop && in[at] == '"') {
            int length = at - start;
            candidates:
            for (String word : words) {
                if (word.length() != length) {
                    continue;
                }
                for (int i = 0; i < length; i++) {
                    if (in[start + i] != word.charAt(i)) {
                        continue candidates;
                    }
                }
                pos = at + 1;
                return word;
            }
        }
        return string();
    }

    /**
     * A count here: an integer of at least 0 (of at most 18 digits); a negative integer, or a
     * value that is not a number (skipped), is -1, as if absent; a float or a longer number is
     * unusual (the general parser's reading of it is {@code canConvertToLong}).
     */
    public long count() throws Unusual {
        if (!atNumber()) {
            skip();
            return -1;
        }
        long count = integer();
        return count >= 0 ? count : -1;
    }

    /** The number here when it is an integer that fits an int (as {@link #integer()}); any other number is unusual. */
    public int intValue() throws Unusual {
        long value = integer();
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw unusual();
        }
        return (int) value;
    }

    /** Skips the value here, checking that it is JSON. */
    public void skip() throws Unusual {
        skip(0);
    }

    private void skip(int depth) throws Unusual {
        byte b = peek();
        switch (b) {
            case '"' -> skipString(MAX_STRING);
            case '{' -> {
                if (depth >= MAX_DEPTH) {
                    throw unusual();
                }
                pos++;
                space();
                if (peek() == '}') {
                    pos++;
                    return;
                }
                do {
                    space();
                    skipString(MAX_NAME);            // a name (escapes allowed here: it is not compared)
                    space();
                    expect((byte) ':');
                    space();
                    skip(depth + 1);
                    space();
                } while (comma());
                expect((byte) '}');
            }
            case '[' -> {
                if (depth >= MAX_DEPTH) {
                    throw unusual();
                }
                pos++;
                space();
                if (peek() == ']') {
                    pos++;
                    return;
                }
                do {
                    space();
                    skip(depth + 1);
                    space();
                } while (comma());
                expect((byte) ']');
            }
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> skipNumber();
        }
    }

    private boolean comma() {
        if (pos < end && bytes[pos] == ',') {
            pos++;
            return true;
        }
        return false;
    }

    /** Skips a string of at most {@code limit} bytes (more: unusual, an escape counting as its bytes). */
    private void skipString(int limit) throws Unusual {
        expect((byte) '"');
        int start = pos;
        byte[] in = bytes;
        while (true) {
            int at = pos;
            int stop = end;
            while (at < stop && PLAIN[in[at] & 0xFF]) {
                at++;
            }
            pos = at;
            if (at >= stop || (in[at] != '"' && in[at] != '\\')) {
                throw unusual();                     // unterminated, or a raw control character
            }
            if (in[at] == '"') {
                break;
            }
            pos++;                                   // the backslash
            escape();
        }
        if (pos - start > limit) {
            throw unusual();
        }
        pos++;
    }

    /** A number by JSON's grammar: {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}. */
    private void skipNumber() throws Unusual {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        byte first = peek();
        if (first == '0') {
            pos++;
        } else if (first >= '1' && first <= '9') {
            digits();
        } else {
            throw unusual();
        }
        if (pos < end && bytes[pos] == '.') {
            pos++;
            if (digits() == 0) {
                throw unusual();
            }
        }
        if (pos < end && (bytes[pos] == 'e' || bytes[pos] == 'E')) {
            pos++;
            if (pos < end && (bytes[pos] == '+' || bytes[pos] == '-')) {
                pos++;
            }
            if (digits() == 0) {
                throw unusual();
            }
        }
        if (pos - start > MAX_NUMBER) {
            throw unusual();
        }
    }

    private int digits() {
        int start = pos;
        while (pos < end && bytes[pos] >= '0' && bytes[pos] <= '9') {
            pos++;
        }
        return pos - start;
    }

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private void literal(byte[] word) throws Unusual {
        if (end - pos < word.length) {
            throw unusual();
        }
        for (byte b : word) {
            if (bytes[pos++] != b) {
                throw unusual();
            }
        }
    }
}
