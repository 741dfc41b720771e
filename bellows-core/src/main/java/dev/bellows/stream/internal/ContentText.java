package dev.bellows.stream.internal;

/**
 * Small text helpers shared by the tool-call decoders: the contract's notion of
 * whitespace, trimming by index (so error positions can point into the content as the
 * model wrote it), and short quotes of the content for error messages.
 */
final class ContentText {

    /** Longest piece of the model's text quoted back in an error message. */
    private static final int MAX_QUOTE = 40;

    private ContentText() {
    }

    /**
     * Whitespace as the stream contract defines it: space, tab, CR and LF only. Java's
     * {@code trim()} and {@code strip()} disagree with it (control characters, NBSP), so
     * everything in the decoders uses this one definition.
     */
    static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    static boolean isBlank(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            if (!isWhitespace(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static String trim(String text) {
        int start = skipWhitespace(text, 0, text.length());
        int end = trimEnd(text, start, text.length());
        return text.substring(start, end);
    }

    /** The first index in {@code [from, to)} that is not whitespace, or {@code to}. */
    static int skipWhitespace(String text, int from, int to) {
        int i = from;
        while (i < to && isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The end of {@code [from, to)} once trailing whitespace is dropped. */
    static int trimEnd(String text, int from, int to) {
        int end = to;
        while (end > from && isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        return end;
    }

    /**
     * "line L, column C" (both 1-based) of an offset, so the model can find the spot in
     * what it wrote. CRLF and a lone CR count as one line break each, as in Jackson.
     */
    static String position(String text, int offset) {
        int end = Math.max(0, Math.min(offset, text.length()));
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c == '\n' || (c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n'))) {
                line++;
                lineStart = i + 1;
            }
        }
        return "line " + line + ", column " + (end - lineStart + 1);
    }

    /**
     * A short, single-line quote of the model's text in double quotes: line breaks and
     * tabs written as escapes, long text cut with "...", never a half surrogate pair.
     */
    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        int limit = Math.min(text.length(), MAX_QUOTE);
        if (limit < text.length() && limit > 0 && Character.isHighSurrogate(text.charAt(limit - 1))) {
            limit--;
        }
        for (int i = 0; i < limit; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c);
            }
        }
        if (limit < text.length()) {
            out.append("...");
        }
        return out.append('"').toString();
    }

    /** One character of the model's text, named so that invisible ones are readable. */
    static String describeChar(String text, int offset) {
        if (offset < 0 || offset >= text.length()) {
            return "the end of the text";
        }
        int codePoint = text.codePointAt(offset);
        return switch (codePoint) {
            case '\n' -> "a line break";
            case '\r' -> "a carriage return";
            case '\t' -> "a tab";
            case ' ' -> "a space";
            default -> {
                if (Character.isISOControl(codePoint) || Character.getType(codePoint) == Character.SURROGATE) {
                    yield String.format("the control character U+%04X", codePoint);
                }
                // A no-break or other Unicode space looks like a plain space when quoted.
                if (Character.isSpaceChar(codePoint) || Character.isWhitespace(codePoint)) {
                    yield String.format("the space character U+%04X", codePoint);
                }
                yield "'" + Character.toString(codePoint) + "'";
            }
        };
    }
}
