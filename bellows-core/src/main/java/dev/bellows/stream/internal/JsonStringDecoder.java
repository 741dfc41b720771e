package dev.bellows.stream.internal;

import java.util.HexFormat;

/**
 * Decodes the body of one JSON string (RFC 8259) a character at a time, from just after its
 * opening quote to its closing quote. Used by {@link JsonNameScanner} for top-level keys and
 * the name value, whose text must come out exactly as the full parse would see it.
 *
 * <p>Strict where the full parse is strict, so that no name is reported for a string it
 * would reject: an unknown escape, a bad {@code \}{@code uXXXX}, a surrogate escape that is
 * not half of a pair, or a raw control character make the string invalid.
 */
final class JsonStringDecoder {

    enum Result {
        /** The string goes on. */
        MORE,
        /** That was the closing quote: {@link #value()} is final. */
        END,
        /** The string can never be valid. */
        INVALID
    }

    private enum State {
        /** Plain characters. */
        CHARS,
        /** After a backslash. */
        ESCAPE,
        /** Reading the four hex digits of a {@code \}{@code u} escape. */
        UNICODE,
        /** After a high-surrogate escape, which must be followed by a low one: expecting its backslash. */
        LOW_SURROGATE_BACKSLASH,
        /** Expecting the {@code u} of the low-surrogate escape. */
        LOW_SURROGATE_U
    }

    private final StringBuilder text = new StringBuilder();
    private State state;
    private int maxLength;
    private boolean tooLong;
    private int hexDigits;
    private int codeUnit;
    /** A decoded high surrogate waiting for its low half, or 0. */
    private char highSurrogate;

    /** Starts a new string; decoded text beyond {@code maxLength} characters is not kept. */
    void start(int maxLength) {
        text.setLength(0);
        this.maxLength = maxLength;
        state = State.CHARS;
        tooLong = false;
        highSurrogate = 0;
    }

    /** The decoded string, or {@code null} if it grew beyond the length given to {@link #start}. */
    String value() {
        return tooLong ? null : text.toString();
    }

    Result accept(char c) {
        switch (state) {
            case CHARS -> {
                if (c == '"') {
                    return Result.END;
                } else if (c == '\\') {
                    state = State.ESCAPE;
                } else if (c < 0x20) {
                    return Result.INVALID; // JSON requires control characters to be escaped
                } else {
                    append(c);
                }
            }
            case ESCAPE -> {
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
                        return Result.MORE;
                    }
                    default -> {
                        return Result.INVALID;
                    }
                }
                append(decoded);
                state = State.CHARS;
            }
            case UNICODE -> {
                if (!HexFormat.isHexDigit(c)) {
                    return Result.INVALID;
                }
                codeUnit = codeUnit << 4 | HexFormat.fromHexDigit(c);
                if (++hexDigits == 4) {
                    return unicodeEscape((char) codeUnit);
                }
            }
            case LOW_SURROGATE_BACKSLASH -> {
                if (c != '\\') {
                    return Result.INVALID;
                }
                state = State.LOW_SURROGATE_U;
            }
            case LOW_SURROGATE_U -> {
                if (c != 'u') {
                    return Result.INVALID;
                }
                startUnicode();
            }
        }
        return Result.MORE;
    }

    private void startUnicode() {
        state = State.UNICODE;
        hexDigits = 0;
        codeUnit = 0;
    }

    /** A complete {@code \}{@code uXXXX}: surrogates must come as a high-low pair of escapes. */
    private Result unicodeEscape(char unit) {
        if (highSurrogate != 0) {
            if (!Character.isLowSurrogate(unit)) {
                return Result.INVALID;
            }
            append(highSurrogate);
            append(unit);
            highSurrogate = 0;
            state = State.CHARS;
        } else if (Character.isHighSurrogate(unit)) {
            highSurrogate = unit;
            state = State.LOW_SURROGATE_BACKSLASH;
        } else if (Character.isLowSurrogate(unit)) {
            return Result.INVALID;
        } else {
            append(unit);
            state = State.CHARS;
        }
        return Result.MORE;
    }

    private void append(char c) {
        if (text.length() < maxLength) {
            text.append(c);
        } else {
            tooLong = true;
        }
    }
}
