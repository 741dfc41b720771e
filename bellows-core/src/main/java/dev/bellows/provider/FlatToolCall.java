package dev.bellows.provider;

/**
 * Reads back a tool call chunk exactly as {@link ProviderChunks#toolCall} writes it
 * ({@code {"index":N,"id":"..","name":"..","arguments":".."}}, id and name optional, no
 * whitespace), without a parser or a tree: the agent reads one per piece of every call.
 * Anything else (spaces, other fields or order, numbers that are not plain ints) answers
 * null, and the caller reads the chunk as a tree.
 */
final class FlatToolCall {

    private final String text;
    private int at;

    private FlatToolCall(String text) {
        this.text = text;
    }

    /** The delta, or null when the text is not of the exact written shape. */
    static ProviderChunks.ToolCallDelta read(String text) {
        return new FlatToolCall(text).read();
    }

    private ProviderChunks.ToolCallDelta read() {
        if (!literal("{\"index\":")) {
            return null;
        }
        int index = integer();
        if (index < 0) {
            return null;
        }
        String id = null;
        String name = null;
        if (literal(",\"id\":")) {
            id = string();
            if (id == null) {
                return null;
            }
        }
        if (literal(",\"name\":")) {
            name = string();
            if (name == null) {
                return null;
            }
        }
        if (!literal(",\"arguments\":")) {
            return null;
        }
        String arguments = string();
        if (arguments == null || !literal("}") || at != text.length()) {
            return null;
        }
        return new ProviderChunks.ToolCallDelta(index, id, name, arguments);
    }

    private boolean literal(String expected) {
        if (text.startsWith(expected, at)) {
            at += expected.length();
            return true;
        }
        return false;
    }

    /** A non-negative int without sign, leading zeros or exponent; -1 otherwise. */
    private int integer() {
        int start = at;
        long value = 0;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9' && at - start < 10) {
            value = value * 10 + (text.charAt(at) - '0');
            at++;
        }
        int digits = at - start;
        if (digits == 0 || (digits > 1 && text.charAt(start) == '0') || value > Integer.MAX_VALUE) {
            return -1;
        }
        return (int) value;
    }

    /** A JSON string at the position, unescaped; null when there is none or it is malformed. */
    private String string() {
        if (at >= text.length() || text.charAt(at) != '"') {
            return null;
        }
        int start = ++at;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"') {
                return text.substring(start, at++);            // no escapes: the text as it is
            }
            if (c == '\\') {
                return escaped(start);
            }
            if (c < 0x20) {
                return null;                                  // not valid JSON: let the tree say so
            }
            at++;
        }
        return null;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private String escaped(int start) {
        StringBuilder out = new StringBuilder(text.length() - start).append(text, start, at);
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                return null;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                return null;
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        return null;
                    }
                    int code = 0;
                    for (int k = 0; k < 4; k++) {
                        int digit = hex(text.charAt(at++));
                        if (digit < 0) {
                            return null;
                        }
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                }
                default -> {
                    return null;
                }
            }
        }
        return null;
    }
}
