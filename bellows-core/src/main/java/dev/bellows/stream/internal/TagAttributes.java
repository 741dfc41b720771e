package dev.bellows.stream.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the attribute section of an open tag: {@code a="v"}, {@code a='v'}, {@code a=v} and
 * bare {@code a} (value {@code ""}), whitespace allowed around {@code =}. Values are taken
 * literally; a repeated attribute keeps its last value; anything that is not an attribute
 * is skipped. The section is short (a tag is at most 256 characters), so this runs once per
 * recognised tag and never on a growing buffer.
 */
final class TagAttributes {

    private TagAttributes() {
    }

    static Map<String, String> parse(CharSequence text, int from, int to) {
        Map<String, String> attributes = new LinkedHashMap<>();
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (!isNameStart(c)) {
                i++; // not an attribute: ignored
                continue;
            }
            int nameStart = i;
            while (i < to && isNameChar(text.charAt(i))) {
                i++;
            }
            String name = text.subSequence(nameStart, i).toString();
            int afterName = i;
            i = skipWhitespace(text, i, to);
            if (i >= to || text.charAt(i) != '=') {
                attributes.put(name, "");
                i = afterName;
                continue;
            }
            i = skipWhitespace(text, i + 1, to);
            String value;
            int closingQuote = i < to && (text.charAt(i) == '"' || text.charAt(i) == '\'')
                    ? indexOf(text, text.charAt(i), i + 1, to)
                    : -1;
            if (closingQuote >= 0) {
                value = text.subSequence(i + 1, closingQuote).toString();
                i = closingQuote + 1;
            } else { // unquoted, or a quote that never closes: the value runs to the next whitespace
                int valueStart = i;
                while (i < to && !TagScanner.isWhitespace(text.charAt(i))) {
                    i++;
                }
                value = text.subSequence(valueStart, i).toString();
            }
            attributes.put(name, value); // a repeated attribute keeps its last value
        }
        return attributes.isEmpty() ? Map.of() : Collections.unmodifiableMap(attributes);
    }

    private static int skipWhitespace(CharSequence text, int i, int to) {
        while (i < to && TagScanner.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int indexOf(CharSequence text, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isNameStart(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
    }

    private static boolean isNameChar(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
    }
}
