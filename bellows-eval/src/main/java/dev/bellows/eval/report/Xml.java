package dev.bellows.eval.report;

import dev.bellows.secret.Secrets;

/**
 * Text for XML 1.0: markup escaped, and the characters XML 1.0 cannot carry at all (control
 * characters but tab and line breaks, lone surrogates, U+FFFE and U+FFFF) written as
 * {@code \}{@code uXXXX}, so that a model's or a tool's text never makes the file unreadable;
 * the secrets the process knows are redacted first ({@link Secrets}).
 */
final class Xml {

    private Xml() {
    }

    /** {@code text} for element content. */
    static String text(String text) {
        return escape(text, false);
    }

    /** {@code text} for a double-quoted attribute value; line breaks kept as character references. */
    static String attribute(String text) {
        return escape(text, true);
    }

    private static String escape(String raw, boolean attribute) {
        String text = Secrets.redact(raw);
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append(attribute ? "&quot;" : "\"");
                case '\n' -> out.append(attribute ? "&#10;" : "\n");
                case '\r' -> out.append("&#13;");
                case '\t' -> out.append(attribute ? "&#9;" : "\t");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                        out.append(c).append(text.charAt(++i));
                    } else if (c < 0x20 || Character.isSurrogate(c) || c == 0xFFFE || c == 0xFFFF) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
