package dev.bellows.provider;

/**
 * The JSON of {@link ProviderChunks}' tool call chunks, written and read without a tree: each
 * piece of a streamed native call is one chunk, so this runs for every piece of every call.
 * It writes what Jackson writes for the same object, and reads back exactly that shape; the
 * reader answers null for anything else, and the caller falls back to a full JSON reader.
 */
final class ChunkJson {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ChunkJson() {
    }

    /** Appends {@code ,"name":"value"} with the value escaped as Jackson escapes it. */
    static void field(StringBuilder json, String name, String value) {
        json.append(",\"").append(name).append("\":\"");
        int start = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            json.append(value, start, i);
            start = i + 1;
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                case '\b' -> json.append("\\b");
                case '\f' -> json.append("\\f");
                default -> json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        json.append(value, start, value.length()).append('"');
    }

    /**
     * Reads {@code {"index":N[,"id":"..."][,"name":"..."],"arguments":"..."}} exactly as
     * {@link #field} and {@link ProviderChunks#toolCall} write it; null for any other text.
     */
    static ProviderChunks.ToolCallDelta toolCallDelta(String json) {
        Reader reader = new Reader(json);
        if (!reader.skip("{\"index\":")) {
            return null;
        }
        int index = reader.index();
        if (index < 0) {
            return null;
        }
        String id = null;
        String name = null;
        if (reader.skip(",\"id\":")) {
            id = reader.string();
            if (id == null) {
                return null;
            }
        }
        if (reader.skip(",\"name\":")) {
            name = reader.string();
            if (name == null) {
                return null;
            }
        }
        if (!reader.skip(",\"arguments\":")) {
            return null;
        }
        String arguments = reader.string();
        if (arguments == null || !reader.skip("}") || !reader.atEnd()) {
            return null;
        }
        return new ProviderChunks.ToolCallDelta(index, id, name, arguments);
    }

    /** A cursor over the text; every method answers null or -1 (and goes no further) where the text differs. */
    private static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        boolean skip(String expected) {
            if (text.startsWith(expected, at)) {
                at += expected.length();
                return true;
            }
            return false;
        }

        boolean atEnd() {
            return at == text.length();
        }

        /** A non-negative int as Jackson writes one (no sign, no leading zero); -1 otherwise. */
        int index() {
            int start = at;
            long value = 0;
            while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9' && at - start < 10) {
                value = value * 10 + (text.charAt(at++) - '0');
            }
            boolean leadingZero = at - start > 1 && text.charAt(start) == '0';
            return at == start || leadingZero || value > Integer.MAX_VALUE ? -1 : (int) value;
        }

        /** A JSON string; null when the text has none here or it is malformed. */
        String string() {
            if (at >= text.length() || text.charAt(at) != '"') {
                return null;
            }
            int start = ++at;
            StringBuilder decoded = null;
            while (at < text.length()) {
                char c = text.charAt(at);
                if (c == '"') {
                    String value = decoded == null ? text.substring(start, at) : decoded.append(text, start, at).toString();
                    at++;
                    return value;
                }
                if (c < 0x20) {
                    return null;
                }
                if (c != '\\') {
                    at++;
                    continue;
                }
                if (decoded == null) {
                    decoded = new StringBuilder(at - start + 16);
                }
                decoded.append(text, start, at);
                if (at + 1 >= text.length()) {
                    return null;
                }
                char escaped = text.charAt(at + 1);
                at += 2;
                switch (escaped) {
                    case '"', '\\', '/' -> decoded.append(escaped);
                    case 'n' -> decoded.append('\n');
                    case 'r' -> decoded.append('\r');
                    case 't' -> decoded.append('\t');
                    case 'b' -> decoded.append('\b');
                    case 'f' -> decoded.append('\f');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            return null;
                        }
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int digit = Character.digit(text.charAt(at + i), 16);
                            if (digit < 0) {
                                return null;
                            }
                            code = code * 16 + digit;
                        }
                        decoded.append((char) code);
                        at += 4;
                    }
                    default -> {
                        return null;
                    }
                }
                start = at;
            }
            return null;
        }
    }
}
