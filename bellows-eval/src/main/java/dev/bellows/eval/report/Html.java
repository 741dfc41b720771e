package dev.bellows.eval.report;

import dev.bellows.secret.Secrets;
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
        if (text != null) {
            escapeInto(Secrets.redact(text), out);
        }
        return this;
    }

    /** Text cut to {@code limit} characters, with a note saying how much was left out. */
    Html text(String text, int limit) {
        if (text.length() <= limit) {
            return text(text);
        }
        int end = Character.isHighSurrogate(text.charAt(limit - 1)) ? limit - 1 : limit;
        return text(text.substring(0, end)).raw("<span class=\"cut\"> &hellip; (")
                .text(String.format(Locale.ROOT, "%,d", text.length() - end)).raw(" more characters not shown)</span>");
    }

    /**
     * Lines of JSON for the inside of a {@code <script type="application/json">}: the process's
     * secrets redacted, every {@code <} written as JSON's escape of it, backslash u003c (so that no
     * {@code </script} or {@code <!--} can end or change the element: outside a JSON string a
     * {@code <} is not JSON anyway), and U+2028 and U+2029 as their escapes. A string of the JSON
     * reads the same after {@code JSON.parse}. A line that {@code dropped} matches is written empty
     * (the lines keep their numbers). Nothing else is touched: one pass over the text.
     */
    Html json(String lines, LineStarts dropped) {
        String text = Secrets.redact(lines);
        if (text.indexOf('\u2028') >= 0 || text.indexOf('\u2029') >= 0) {     // at once for a text of Latin-1 only: it holds neither
            return jsonCharByChar(text, dropped);
        }
        // line by line, and '<' by '<': the searches the JDK makes fast, not a test of every character
        int from = 0;       // where the text not yet written starts
        int less = text.indexOf('<');
        for (int line = 0; line < text.length(); ) {
            int lineBreak = text.indexOf('\n', line);
            int end = lineBreak < 0 ? text.length() : lineBreak;
            int next = lineBreak < 0 ? text.length() : lineBreak + 1;
            if (dropped.match(text, line)) {
                out.append(text, from, line);
                from = end;     // the line break stays
            } else {
                for (; less >= 0 && less < end; less = text.indexOf('<', less + 1)) {
                    out.append(text, from, less).append("\\u003c");
                    from = less + 1;
                }
            }
            if (less >= 0 && less < next) {
                less = text.indexOf('<', next);     // past a dropped line's
            }
            line = next;
        }
        out.append(text, from, text.length());
        return this;
    }

    /** {@link #json} for a text that holds U+2028 or U+2029: every character looked at. */
    private Html jsonCharByChar(String text, LineStarts dropped) {
        int from = 0;       // where the text not yet written starts
        boolean lineStart = true;
        for (int i = 0; i < text.length(); i++) {
            if (lineStart) {
                lineStart = false;
                if (dropped.match(text, i)) {
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

    /**
     * Lines known by how they start: a start all of them share, then one of their rests. The
     * shared start is compared once a line, not once for each: most lines are not matched, and
     * most fail on the first characters after it.
     */
    static final class LineStarts {
        private final String shared;
        private final String[] rests;

        LineStarts(java.util.List<String> starts) {
            String common = starts.isEmpty() ? "" : starts.get(0);
            for (String start : starts) {
                int n = 0;
                while (n < common.length() && n < start.length() && common.charAt(n) == start.charAt(n)) {
                    n++;
                }
                common = common.substring(0, n);
            }
            this.shared = common;
            this.rests = starts.stream().map(start -> start.substring(shared.length())).toArray(String[]::new);
        }

        /** Whether {@code text} at {@code at} starts with one of the starts. */
        boolean match(String text, int at) {
            if (rests.length == 0 || !text.startsWith(shared, at)) {
                return false;
            }
            int rest = at + shared.length();
            for (String start : rests) {
                if (text.startsWith(start, rest)) {
                    return true;
                }
            }
            return false;
        }
    }

    int length() {
        return out.length();
    }

    /**
     * Writes the text so far to {@code writer} and empties the builder, keeping its room: a
     * builder used for one part after another makes no copy of its text (a window of it at a
     * time goes to the writer) and grows once, not per part.
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
        escapeInto(text, escaped);
        return escaped.toString();
    }

    /**
     * {@code text} escaped onto {@code out}: the runs between the characters that need escaping
     * appended whole, not a character at a time, and no string made for the escaped text.
     */
    private static void escapeInto(String text, StringBuilder out) {
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            String replacement = switch (text.charAt(i)) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                case '\0' -> "\uFFFD";
                default -> null;
            };
            if (replacement != null) {
                out.append(text, from, i).append(replacement);
                from = i + 1;
            }
        }
        out.append(text, from, text.length());
    }
}
