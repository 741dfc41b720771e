package dev.bellows.eval;

import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A JSON value appended to a check's reason as {@link JsonNode#toString()} writes it (compact),
 * without a generator and its buffers for each value: the {@code tools} check shows every call's
 * arguments of every run. Only what has one obvious text is written here (objects, arrays, whole
 * numbers, booleans, null, strings that need no escape); anything else falls back to
 * {@code toString()} for the whole value, so the text is always {@code toString()}'s.
 */
final class CompactJson {

    private CompactJson() {
    }

    /** Appends {@code value}'s {@link JsonNode#toString()} to {@code out}. */
    static void append(StringBuilder out, JsonNode value) {
        int start = out.length();
        if (!plain(out, value)) {
            out.setLength(start);
            out.append(value);
        }
    }

    /** Appends {@code value}; false (and a part appended) when it holds what only the generator writes. */
    private static boolean plain(StringBuilder out, JsonNode value) {
        if (value.isObject()) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                if (!string(out, field.getKey())) {
                    return false;
                }
                out.append(':');
                if (!plain(out, field.getValue())) {
                    return false;
                }
            }
            out.append('}');
            return true;
        }
        if (value.isArray()) {
            out.append('[');
            for (int i = 0; i < value.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                if (!plain(out, value.get(i))) {
                    return false;
                }
            }
            out.append(']');
            return true;
        }
        if (value.isString()) {
            return string(out, value.asString());
        }
        if (value.isInt() || value.isLong()) {
            out.append(value.longValue());
            return true;
        }
        if (value.isBoolean()) {
            out.append(value.booleanValue());
            return true;
        }
        if (value.isNull()) {
            out.append("null");
            return true;
        }
        return false;       // a fraction, a big number, binary, a POJO: the generator's text
    }

    /** A string that needs no escape (no quote, backslash or control character), quoted; false for any other. */
    private static boolean string(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
                return false;       // escaped, or left to the generator (non-ASCII, DEL)
            }
        }
        out.append('"').append(text).append('"');
        return true;
    }
}
