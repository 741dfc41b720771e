package dev.bellows.stream.internal;

import dev.bellows.stream.internal.ToolNameSniffer.Step;
import java.util.HexFormat;

/**
 * The XML half of {@link ToolNameSniffer}: looks for the exact text {@code <tool_name>}
 * (giving up if {@code <arguments} comes first), decodes the value as it arrives and reports
 * it when the exact text {@code </tool_name>} completes.
 *
 * <p>The value is decoded as the full parse decodes element text: the five XML entities and
 * numeric character references to Unicode scalar values other than NUL; any other text after
 * {@code &} stays as written; CDATA sections are unwrapped and taken literally. A name must
 * not contain {@code <} once decoded, so any {@code <} that is not the start of
 * {@code </tool_name>} or of a CDATA section, and any {@code <} that decoding produces, ends
 * the search at once: nothing after it could make the name valid again.
 */
final class XmlNameScanner implements ToolNameSniffer.BodyScanner {

    private static final String OPEN_TAG = "<tool_name>";
    private static final String ARGUMENTS = "<arguments";
    private static final String CLOSE_TAG = "</tool_name>";
    private static final String CDATA_OPEN = "<![CDATA[";
    /** Longest entity name among lt, gt, amp, quot, apos. */
    private static final int MAX_ENTITY_NAME = 4;
    /** Any value above the largest code point: what an overlong reference saturates to. */
    private static final int OUT_OF_RANGE = Character.MAX_CODE_POINT + 1;

    private enum State {
        /** Before {@code <tool_name>}, watching for it and for {@code <arguments}. */
        SEEK,
        /** In the value's plain text. */
        TEXT,
        /** After a {@code <} in the value: must become {@code </tool_name>} or {@code <![CDATA[}. */
        MARKUP,
        /** Inside a CDATA section of the value. */
        CDATA,
        /** Just after {@code &}. */
        REFERENCE,
        /** In the name of an entity reference ({@code &amp}). */
        ENTITY_NAME,
        /** In a numeric character reference, after {@code &#} (and {@code x} for hex). */
        CHAR_REFERENCE
    }

    private State state = State.SEEK;
    /** Characters of {@link #OPEN_TAG} matched so far (SEEK). */
    private int openMatched;
    /** Characters of {@link #ARGUMENTS} matched so far (SEEK). */
    private int argumentsMatched;
    /** The markup being matched after a {@code <} (MARKUP), or null before its second character. */
    private String markup;
    /** Characters of {@link #markup} matched so far, the {@code <} included (MARKUP). */
    private int markupMatched;
    /** Consecutive {@code ]} at the end of the CDATA text so far: two then {@code >} end it (CDATA). */
    private int closingBrackets;
    /**
     * Where the reference being read starts in {@link #value}. A reference's raw text goes into
     * the value as it arrives and is replaced by its character once complete, so text after
     * {@code &} that turns out not to be a reference is already where it belongs.
     */
    private int referenceStart;
    /** Radix of the numeric reference being read: 10, or 16 after {@code &#x}. */
    private int radix;
    private int referenceDigits;
    private int codePoint;

    /** The decoded value so far. */
    private final StringBuilder value = new StringBuilder();
    private String name;

    @Override
    public Step accept(char c) {
        return switch (state) {
            case SEEK -> seek(c);
            case TEXT -> text(c);
            case MARKUP -> markup(c);
            case CDATA -> cdata(c);
            case REFERENCE -> reference(c);
            case ENTITY_NAME -> entityName(c);
            case CHAR_REFERENCE -> charReference(c);
        };
    }

    @Override
    public String name() {
        return name;
    }

    private Step seek(char c) {
        openMatched = advance(OPEN_TAG, openMatched, c);
        argumentsMatched = advance(ARGUMENTS, argumentsMatched, c);
        if (argumentsMatched == ARGUMENTS.length()) {
            return Step.NONE; // the arguments began before any tool_name
        }
        if (openMatched == OPEN_TAG.length()) {
            state = State.TEXT;
        }
        return Step.MORE;
    }

    /**
     * One step of matching a fixed text. Each pattern here holds {@code <} only at its start,
     * so after a mismatch the match can only restart at this character, if it is a {@code <}.
     */
    private static int advance(String pattern, int matched, char c) {
        if (pattern.charAt(matched) == c) {
            return matched + 1;
        }
        return c == '<' ? 1 : 0;
    }

    private Step text(char c) {
        switch (c) {
            case '<' -> {
                state = State.MARKUP;
                markup = null;
                markupMatched = 1;
            }
            case '&' -> {
                state = State.REFERENCE;
                referenceStart = value.length();
                value.append(c);
            }
            default -> value.append(c);
        }
        return Step.MORE;
    }

    private Step markup(char c) {
        if (markup == null) {
            // The second character tells the two apart: '/' or '!'.
            markup = c == '/' ? CLOSE_TAG : c == '!' ? CDATA_OPEN : null;
        }
        if (markup == null || markup.charAt(markupMatched) != c) {
            return Step.NONE; // the '<' stays in the value, and a name never holds one
        }
        if (++markupMatched < markup.length()) {
            return Step.MORE;
        }
        if (markup == CDATA_OPEN) {
            state = State.CDATA;
            closingBrackets = 0;
            return Step.MORE;
        }
        return finish();
    }

    private Step cdata(char c) {
        if (c == '>' && closingBrackets >= 2) {
            value.setLength(value.length() - 2); // the "]]" of "]]>"
            state = State.TEXT;
            return Step.MORE;
        }
        if (c == '<') {
            return Step.NONE; // CDATA is literal: this '<' would be in the name
        }
        closingBrackets = c == ']' ? closingBrackets + 1 : 0;
        value.append(c);
        return Step.MORE;
    }

    private Step reference(char c) {
        if (c == '#') {
            value.append(c);
            state = State.CHAR_REFERENCE;
            radix = 10;
            referenceDigits = 0;
            codePoint = 0;
            return Step.MORE;
        }
        if (isAsciiLetter(c)) {
            value.append(c);
            state = State.ENTITY_NAME;
            return Step.MORE;
        }
        return notAReference(c);
    }

    private Step entityName(char c) {
        int nameLength = value.length() - referenceStart - 1;
        if (isAsciiLetter(c) && nameLength < MAX_ENTITY_NAME) {
            value.append(c);
            return Step.MORE;
        }
        if (c == ';') {
            int decoded = switch (value.substring(referenceStart + 1)) {
                case "lt" -> '<';
                case "gt" -> '>';
                case "amp" -> '&';
                case "quot" -> '"';
                case "apos" -> '\'';
                default -> -1;
            };
            if (decoded >= 0) {
                return replaceReference(decoded);
            }
        }
        return notAReference(c);
    }

    private Step charReference(char c) {
        if (c == 'x' && radix == 10 && referenceDigits == 0) {
            value.append(c);
            radix = 16;
            return Step.MORE;
        }
        int digit = asciiDigit(c, radix);
        if (digit >= 0) {
            value.append(c);
            referenceDigits++;
            codePoint = Math.min(codePoint * radix + digit, OUT_OF_RANGE);
            return Step.MORE;
        }
        if (c == ';' && referenceDigits > 0 && isScalarValue(codePoint) && codePoint != 0) {
            return replaceReference(codePoint);
        }
        return notAReference(c);
    }

    /** The reference is complete and valid: its raw text gives way to the character. */
    private Step replaceReference(int decoded) {
        value.setLength(referenceStart);
        if (decoded == '<') {
            return Step.NONE; // &lt; or &#60;: a name never holds '<'
        }
        value.appendCodePoint(decoded);
        state = State.TEXT;
        return Step.MORE;
    }

    /** What followed {@code &} is not a reference: it stays as written, and c is plain value text again. */
    private Step notAReference(char c) {
        state = State.TEXT;
        return text(c);
    }

    /** {@code </tool_name>} completed: the value is final. */
    private Step finish() {
        int start = 0;
        int end = value.length();
        while (start < end && ToolNameSniffer.isWhitespace(value.charAt(start))) {
            start++;
        }
        while (end > start && ToolNameSniffer.isWhitespace(value.charAt(end - 1))) {
            end--;
        }
        if (start == end) {
            return Step.NONE;
        }
        name = value.substring(start, end);
        return Step.FOUND;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isScalarValue(int cp) {
        return cp <= Character.MAX_CODE_POINT && (cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE);
    }

    /** The value of an ASCII digit in the radix (10 or 16), or -1: XML allows no other digits. */
    private static int asciiDigit(char c, int radix) {
        if (radix == 16) {
            return HexFormat.isHexDigit(c) ? HexFormat.fromHexDigit(c) : -1;
        }
        return c >= '0' && c <= '9' ? c - '0' : -1;
    }
}
