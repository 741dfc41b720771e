package dev.bellows.eval.report;

import dev.bellows.secret.Secrets;
import java.util.List;
import java.util.Locale;

/**
 * Building HTML from untrusted text: {@link #text} escapes everything that could end a text
 * node or an attribute value, so an answer's {@code <script>} is shown, never run, and redacts
 * the secrets the process knows (an API key a report should not hold never reaches the page).
 */
final class Html {

    private final StringBuilder out = new StringBuilder(4096);
    /** {@link #writeTo}'s window onto the text, made on its first call. */
    private char[] chunk;

    /** Markup written by this package, never text from a report. */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Text from a report (or anything else), escaped for a text node or a quoted attribute. */
    Html text(String text) {
        out.append(escape(text));
        return this;
    }

    /** Text cut to {@code limit} characters, with a note saying how much was left out. */
    Html text(String text, int limit) {
        if (text.length() <= limit) {
            return text(text);
        }
        int end = Character.isHighSurrogate(text.charAt(limit - 1)) ? limit - 1 : limit;
        return text(text.substring(0, end)).raw("<span class=\"cut\"> \u2026 (")
                .text(String.format(Locale.ROOT, "%,d", text.length() - end)).raw(" more characters not shown)</span>");
    }

    /**
     * Lines of JSON for the inside of a {@code <script type="application/json">}: the process's
     * secrets redacted, every {@code <} written as JSON's escape of it, backslash u003c (so that no
     * {@code </script} or {@code <!--} can end or change the element: outside a JSON string a
     * {@code <} is not JSON anyway), and U+2028 and U+2029 as their escapes. A string of the JSON
     * reads the same after {@code JSON.parse}. A line that starts with one of {@code dropped} is
     * written empty (the lines keep their numbers). Nothing else is touched: one pass over the text.
     */
    Html json(String lines, List<String> dropped) {
        String text = Secrets.redact(lines);
        int from = 0;       // where the text not yet written starts
        boolean lineStart = true;
        for (int i = 0; i < text.length(); i++) {
            if (lineStart) {
                lineStart = false;
                if (startsWithAny(text, i, dropped)) {
                    int end = text.indexOf('\n', i);
                    out.append(text, from, i);
                    from = end < 0 ? text.length() : end;
                    i = from - 1;
                    continue;
                }
            }
            char c = text.charAt(i);
            if (c == '\n') {
                lineStart = true;
            } else if (c == '<' || c == '\u2028' || c == '\u2029') {
                out.append(text, from, i).append(c == '<' ? "\\u003c" : c == '\u2028' ? "\\u2028" : "\\u2029");
                from = i + 1;
            }
        }
        out.append(text, from, text.length());
        return this;
    }

    private static boolean startsWithAny(String text, int at, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (text.startsWith(prefix, at)) {
                return true;
            }
        }
        return false;
    }

    int length() {
        return out.length();
    }

    /**
     * Writes the text so far to {@code writer} and empties the builder, keeping its room: a builder
     * used for one part after another makes no copy of its text and grows once, not per part.
     */
    void writeTo(java.io.Writer writer) throws java.io.IOException {
        if (chunk == null) {
            chunk = new char[8192];
        }
        for (int at = 0; at < out.length(); at += chunk.length) {
            int end = Math.min(out.length(), at + chunk.length);
            out.getChars(at, end, chunk, 0);
            writer.write(chunk, 0, end - at);
        }
        out.setLength(0);
    }

    String take() {
        String html = out.toString();
        out.setLength(0);
        return html;
    }

    /** {@code text} with the process's secrets redacted ({@link Secrets}), escaped for a text node or a quoted attribute. */
    static String escape(String raw) {
        if (raw == null) {
            return "";
        }
        String text = Secrets.redact(raw);
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                case '\0' -> escaped.append('\uFFFD');
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
