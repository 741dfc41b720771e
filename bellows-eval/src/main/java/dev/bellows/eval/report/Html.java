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

    int length() {
        return out.length();
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
