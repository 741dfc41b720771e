package dev.bellows.stream.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.StringNode;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;

/**
 * Reads one JSON document as it streams and reports each member of its arguments object the
 * moment the member's value is complete: a string at its closing quote, an object or array at
 * its closing bracket, {@code true} / {@code false} / {@code null} at their last letter, a number
 * at the first character after it that is not part of it (docs/stream-format.md, "Argument values
 * as they complete").
 *
 * <p>Two shapes of document: a call ({@code forCall}: {@code {"name": ..., "arguments":
 * {...}}}), whose arguments object is the value of its first top-level key among
 * {@code arguments}, {@code args}, {@code parameters} when that value is an object; or
 * the arguments object itself ({@link #forArguments}: the providers' native calls, and the
 * dialects that write the arguments alone). Leading whitespace is skipped; the document must
 * start with <code>{</code>.
 *
 * <p>It checks the whole JSON grammar as strictly as the parse at the block's close (RFC 8259:
 * no NaN, no trailing commas, no leading zeros, escaped control characters), one character at a
 * time, so a value that is not valid JSON is never reported; at the first character that breaks
 * the grammar it stops for good (the parse at the close decides the call). Strings are scanned in
 * runs up to the next quote, backslash or control character; only the value of the member being
 * completed is kept (decoded for a string, as written for the rest), and every value is built
 * exactly once, so the cost is linear in the document's length, whatever its pieces.
 *
 * <p>Not thread-safe: one scanner per document.
 */
public final class JsonArgumentScanner implements ArgumentReader {

    private static final Set<String> ARGUMENTS_KEYS = Set.of("arguments", "args", "parameters");

    // What the next character may be.
    private static final int BEFORE_DOCUMENT = 0; // leading whitespace, then '{'
    private static final int VALUE = 1;           // a value (after ':' or ',' in an array)
    private static final int OBJECT_FIRST = 2;    // after '{': a key or '}'
    private static final int OBJECT_KEY = 3;      // after ',' in an object: a key
    private static final int COLON = 4;           // after a key
    private static final int AFTER_VALUE = 5;     // ',' or the closing bracket
    private static final int ARRAY_FIRST = 6;     // after '[': a value or ']'
    private static final int STRING = 7;
    private static final int ESCAPE = 8;
    private static final int UNICODE = 9;
    private static final int NUMBER = 10;
    private static final int LITERAL = 11;
    private static final int DONE = 12;           // finished or broken: nothing more is read

    // Where a number is (NUMBER): what may follow.
    private static final int N_MINUS = 0;         // after '-': a digit
    private static final int N_ZERO = 1;          // a leading 0: '.', 'e' or the end
    private static final int N_INT = 2;           // integer digits
    private static final int N_DOT = 3;           // after '.': a digit
    private static final int N_FRACTION = 4;
    private static final int N_EXPONENT = 5;      // after 'e': sign or digit
    private static final int N_EXPONENT_SIGN = 6; // after the sign: a digit
    private static final int N_EXPONENT_DIGITS = 7;

    private final boolean call;
    private final Sink sink;
    private boolean broken;

    private int state = BEFORE_DOCUMENT;
    /** Open containers, innermost last: true for an object. */
    private boolean[] objects = new boolean[16];
    private int depth;
    /** The depth whose members are the arguments' (1 or 2); 0 while it is not known yet; -1: none (a checker). */
    private int argumentsDepth;
    /** The call's first arguments key was read: the next value decides whether there are arguments. */
    private boolean argumentsKeySeen;
    /** The string being read is a key (its container is an object expecting one). */
    private boolean stringIsKey;

    /**
     * What is kept of the text: {@link #KEEP_NOTHING}; the decoded text of a key or string value
     * of interest; or the raw text of a member's non-string value.
     */
    private int keep;
    private static final int KEEP_NOTHING = 0;
    private static final int KEEP_KEY = 1;            // an arguments key, decoded
    private static final int KEEP_STRING = 2;         // an argument's string value, decoded
    private static final int KEEP_RAW = 3;            // an argument's number, literal, object or array, as written
    private static final int KEEP_ARGUMENTS_KEY = 4;  // a top-level key of the call (is it "arguments"?)

    private final StringBuilder text = new StringBuilder();
    private String memberName;
    private int numberState;
    private String literal;
    private int literalMatched;
    private int hexDigits;
    private int codeUnit;

    private JsonArgumentScanner(boolean call, int argumentsDepth, Sink sink) {
        this.call = call;
        this.sink = sink;
        this.argumentsDepth = argumentsDepth;
    }

    /** A scanner of a whole call, {@code {"name": ..., "arguments": {...}}}. */
    static JsonArgumentScanner forCall(Sink sink) {
        return new JsonArgumentScanner(true, 0, sink);
    }

    /** A scanner of an arguments object on its own. */
    public static JsonArgumentScanner forArguments(Sink sink) {
        return new JsonArgumentScanner(false, 1, sink);
    }

    /**
     * A checker of one JSON object that reports nothing: {@link #isComplete()} once the object
     * closed valid, {@link #isBroken()} at the first character that breaks the grammar. Llama 3's
     * bare calls are held until it says which.
     */
    static JsonArgumentScanner forDocument() {
        return new JsonArgumentScanner(false, -1, (name, value) -> { });
    }

    /** Whether nothing more can be reported: the arguments ended, or the document broke. */
    public boolean isDone() {
        return state == DONE;
    }

    /** Whether a character broke the grammar (or the document did not start with an object). */
    boolean isBroken() {
        return broken;
    }

    /** Whether the document's object closed, valid (for a {@linkplain #forDocument() checker}). */
    boolean isComplete() {
        return state == DONE && !broken;
    }

    private void fail() {
        state = DONE;
        broken = true;
    }

    @Override
    public void feed(CharSequence chars, int from, int to) {
        feedUntilDone(chars, from, to);
    }

    /**
     * Reads {@code chars[from, to)} up to the character that ends the reading (the one completing
     * the document or breaking it) and returns the index after it, or {@code to}.
     */
    int feedUntilDone(CharSequence chars, int from, int to) {
        int i = from;
        while (i < to && state != DONE) {
            if (state == STRING) {
                i = stringRun(chars, i, to);
            } else {
                accept(chars.charAt(i));
                i++;
            }
        }
        return i;
    }

    /** The plain characters of a string, up to the next quote, backslash or control character. */
    private int stringRun(CharSequence chars, int from, int to) {
        int i = from;
        while (i < to) {
            char c = chars.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20) {
                break;
            }
            i++;
        }
        if (i > from && keep != KEEP_NOTHING) {
            text.append(chars, from, i);
        }
        if (i < to) {
            accept(chars.charAt(i));
            i++;
        }
        return i;
    }

    private void accept(char c) {
        switch (state) {
            case BEFORE_DOCUMENT -> {
                if (c == '{') {
                    open(true);
                    state = OBJECT_FIRST;
                } else if (!isWhitespace(c)) {
                    fail();
                }
            }
            case VALUE -> value(c);
            case ARRAY_FIRST -> {
                if (c == ']') {
                    close(false);
                } else {
                    value(c);
                }
            }
            case OBJECT_FIRST -> {
                if (c == '"') {
                    startKey();
                } else if (c == '}') {
                    close(true);
                } else if (!isWhitespace(c)) {
                    fail();
                }
            }
            case OBJECT_KEY -> {
                if (c == '"') {
                    startKey();
                } else if (!isWhitespace(c)) {
                    fail(); // a trailing comma, or a key not in quotes
                }
            }
            case COLON -> {
                if (c == ':') {
                    if (keep == KEEP_RAW) {
                        text.append(c);
                    }
                    state = VALUE;
                } else if (!isWhitespace(c)) {
                    fail();
                }
            }
            case AFTER_VALUE -> afterValue(c);
            case STRING -> stringChar(c);
            case ESCAPE -> escape(c);
            case UNICODE -> unicode(c);
            case NUMBER -> number(c);
            case LITERAL -> literal(c);
            default -> { }
        }
    }

    // ---- structure -----------------------------------------------------------------------

    /** The first character of a value. */
    private void value(char c) {
        if (isWhitespace(c)) {
            return;
        }
        boolean member = isArgumentValue();
        if (member) {
            text.setLength(0);
        }
        if (argumentsKeySeen) {
            // The call's first arguments key: its value is the arguments only if it is an object.
            argumentsKeySeen = false;
            if (c != '{') {
                state = DONE;
                return;
            }
            argumentsDepth = depth + 1;
        }
        switch (c) {
            case '"' -> {
                stringIsKey = false;
                keep = member ? KEEP_STRING : keepRaw();
                if (keep == KEEP_RAW) {
                    text.append(c);
                }
                state = STRING;
            }
            case '{', '[' -> {
                if (member) {
                    keep = KEEP_RAW;
                }
                if (keep == KEEP_RAW) {
                    text.append(c);
                }
                open(c == '{');
                state = c == '{' ? OBJECT_FIRST : ARRAY_FIRST;
            }
            case 't', 'f', 'n' -> {
                if (member) {
                    keep = KEEP_RAW;
                }
                if (keep == KEEP_RAW) {
                    text.append(c);
                }
                literal = c == 't' ? "true" : c == 'f' ? "false" : "null";
                literalMatched = 1;
                state = LITERAL;
            }
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    if (member) {
                        keep = KEEP_RAW;
                    }
                    if (keep == KEEP_RAW) {
                        text.append(c);
                    }
                    numberState = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
                    state = NUMBER;
                } else {
                    fail();
                }
            }
        }
    }

    /** Whether the value starting now is a member of the arguments object. */
    private boolean isArgumentValue() {
        return argumentsDepth > 0 && depth == argumentsDepth && memberName != null;
    }

    /** Inside a member's value being kept as written, nested values are kept too. */
    private int keepRaw() {
        return keep == KEEP_RAW ? KEEP_RAW : KEEP_NOTHING;
    }

    private void startKey() {
        stringIsKey = true;
        if (argumentsDepth > 0 && depth == argumentsDepth) {
            keep = KEEP_KEY;
            text.setLength(0);
        } else if (call && argumentsDepth == 0 && depth == 1) {
            keep = KEEP_ARGUMENTS_KEY;
            text.setLength(0);
        } else {
            keep = keepRaw();
            if (keep == KEEP_RAW) {
                text.append('"');
            }
        }
        state = STRING;
    }

    private void afterValue(char c) {
        if (isWhitespace(c)) {
            return;
        }
        if (keep == KEEP_RAW && depth > argumentsDepth) {
            text.append(c);
        }
        boolean object = objects[depth - 1];
        if (c == ',') {
            state = object ? OBJECT_KEY : VALUE;
        } else if (c == (object ? '}' : ']')) {
            close(object);
        } else {
            fail();
        }
    }

    private void open(boolean object) {
        if (depth == objects.length) {
            objects = Arrays.copyOf(objects, depth * 2);
        }
        objects[depth++] = object;
    }

    /** The innermost container closed (its bracket already kept when the value is kept). */
    private void close(boolean object) {
        if (state == ARRAY_FIRST && keep == KEEP_RAW) {
            text.append(']');
        } else if (state == OBJECT_FIRST && keep == KEEP_RAW) {
            text.append('}');
        }
        depth--;
        if (depth == 0 || (argumentsDepth > 0 && depth < argumentsDepth)) {
            state = DONE; // the document, or the arguments object, ended: nothing more to report
            return;
        }
        state = AFTER_VALUE;
        valueEnded();
    }

    /** A value ended at the current depth; if it was an argument kept as written, it is reported. */
    private void valueEnded() {
        if (argumentsDepth > 0 && depth == argumentsDepth && memberName != null) {
            if (keep == KEEP_RAW) {
                report(memberName, readRaw());
            } else if (keep == KEEP_STRING) {
                report(memberName, StringNode.valueOf(text.toString()));
            }
            memberName = null;
            keep = KEEP_NOTHING;
            text.setLength(0);
        }
    }

    private JsonNode readRaw() {
        JsonNode small = smallInteger(text);
        if (small != null) {
            return small;
        }
        String raw = text.toString();
        return switch (raw) {
            case "true" -> BooleanNode.TRUE;
            case "false" -> BooleanNode.FALSE;
            case "null" -> NullNode.getInstance();
            default -> {
                try {
                    yield StrictJson.read(raw);
                } catch (SyntaxError e) {
                    yield null; // checked here already; the parse's own limits (nesting) decide
                }
            }
        };
    }

    /**
     * An integer of at most nine digits (the scanner has checked its syntax: no leading zero),
     * as the JSON reader would read it ({@code IntNode}), without a parser: most arguments that
     * are numbers are small integers; else null.
     */
    static JsonNode smallInteger(CharSequence raw) {
        int length = raw.length();
        int start = length > 0 && raw.charAt(0) == '-' ? 1 : 0;
        if (length == start || length - start > 9) {
            return null;
        }
        int value = 0;
        for (int i = start; i < length; i++) {
            char c = raw.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            value = value * 10 + (c - '0');
        }
        return IntNode.valueOf(start == 1 ? -value : value);
    }

    private void report(String name, JsonNode value) {
        if (value != null) {
            sink.argument(name, value);
        }
    }

    // ---- strings -------------------------------------------------------------------------

    private void stringChar(char c) {
        if (c == '"') {
            if (keep == KEEP_RAW) {
                text.append(c);
            }
            stringEnded();
        } else if (c == '\\') {
            if (keep == KEEP_RAW) {
                text.append(c);
            }
            state = ESCAPE;
        } else {
            fail(); // a raw control character: JSON requires it escaped
        }
    }

    private void stringEnded() {
        if (stringIsKey) {
            stringIsKey = false;
            if (keep == KEEP_KEY) {
                memberName = text.toString();
                keep = KEEP_NOTHING;
                text.setLength(0);
            } else if (keep == KEEP_ARGUMENTS_KEY) {
                argumentsKeySeen = ARGUMENTS_KEYS.contains(text.toString());
                keep = KEEP_NOTHING;
                text.setLength(0);
            }
            state = COLON;
            return;
        }
        state = AFTER_VALUE;
        valueEnded();
    }

    private void escape(char c) {
        if (keep == KEEP_RAW) {
            text.append(c);
            if (c == 'u') {
                startUnicode();
                return;
            }
            if ("\"\\/bfnrt".indexOf(c) < 0) {
                fail();
                return;
            }
            state = STRING;
            return;
        }
        char decoded;
        switch (c) {
            case '"', '\\', '/' -> decoded = c;
            case 'b' -> decoded = '\b';
            case 'f' -> decoded = '\f';
            case 'n' -> decoded = '\n';
            case 'r' -> decoded = '\r';
            case 't' -> decoded = '\t';
            case 'u' -> {
                startUnicode();
                return;
            }
            default -> {
                fail();
                return;
            }
        }
        if (keep != KEEP_NOTHING) {
            text.append(decoded);
        }
        state = STRING;
    }

    private void startUnicode() {
        hexDigits = 0;
        codeUnit = 0;
        state = UNICODE;
    }

    /** Four hex digits; each escape is one UTF-16 unit, as the parse at the close reads it. */
    private void unicode(char c) {
        if (!HexFormat.isHexDigit(c)) {
            fail();
            return;
        }
        codeUnit = codeUnit << 4 | HexFormat.fromHexDigit(c);
        if (keep == KEEP_RAW) {
            text.append(c);
        }
        if (++hexDigits == 4) {
            if (keep != KEEP_NOTHING && keep != KEEP_RAW) {
                text.append((char) codeUnit);
            }
            state = STRING;
        }
    }

    // ---- numbers and literals ------------------------------------------------------------

    private void number(char c) {
        boolean digit = c >= '0' && c <= '9';
        int next = switch (numberState) {
            case N_MINUS -> digit ? (c == '0' ? N_ZERO : N_INT) : -1;
            case N_ZERO -> c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_EXPONENT : digit ? -1 : -2;
            case N_INT -> digit ? N_INT : c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_EXPONENT : -2;
            case N_DOT, N_FRACTION -> digit ? N_FRACTION
                    : numberState == N_FRACTION && (c == 'e' || c == 'E') ? N_EXPONENT
                    : numberState == N_FRACTION ? -2 : -1;
            case N_EXPONENT -> digit ? N_EXPONENT_DIGITS : (c == '+' || c == '-') ? N_EXPONENT_SIGN : -1;
            case N_EXPONENT_SIGN -> digit ? N_EXPONENT_DIGITS : -1;
            default -> digit ? N_EXPONENT_DIGITS : -2; // N_EXPONENT_DIGITS
        };
        if (next == -1) {
            fail(); // "-", "1.", "1e", a leading zero...: not a number
            return;
        }
        if (next >= 0) {
            numberState = next;
            if (keep == KEEP_RAW) {
                text.append(c);
            }
            return;
        }
        // The number ended one character ago: it is complete now, and c is read after it.
        state = AFTER_VALUE;
        valueEnded();
        accept(c);
    }

    private void literal(char c) {
        if (literal.charAt(literalMatched) != c) {
            fail();
            return;
        }
        if (keep == KEEP_RAW) {
            text.append(c);
        }
        if (++literalMatched == literal.length()) {
            state = AFTER_VALUE;
            valueEnded(); // at its last letter
        }
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
}
