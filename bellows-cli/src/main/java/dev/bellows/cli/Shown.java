package dev.bellows.cli;

import dev.bellows.secret.Secrets;

/**
 * The one filter for text that came from a model, a tool or a server (or any text that may
 * hold some) before the command line shows it, on a terminal or not: every configured secret
 * replaced by {@code [REDACTED]} ({@link Secrets}), then every control character made visible.
 *
 * <p>Control characters are C0 ({@code U+0000}-{@code U+001F}) but newline and tab, DEL
 * ({@code U+007F}) and C1 ({@code U+0080}-{@code U+009F}). A model that read a hostile page
 * must not be able to move the cursor, clear the screen, retitle the window or write to the
 * clipboard ({@code ESC ] 52}): only Bellows' own styling writes escape sequences. C0 controls
 * become caret notation ({@code ESC} is {@code ^[}, BEL {@code ^G}, NUL {@code ^@}, a carriage
 * return {@code ^M}), as {@code cat -v} shows them; DEL and C1 controls become {@code \u007f}
 * and {@code \u009b}: those stay valid, and mean the same, inside a JSON string, so a JSON
 * document (whose writer escapes C0 itself) can go through this filter whole. A carriage
 * return right before a newline is dropped: a Windows line end is a line end.
 *
 * <p>Stateless and thread-safe; a string without controls or secrets comes back as it is.
 */
final class Shown {

    private Shown() {
    }

    /** {@code text} with secrets redacted and control characters made visible; null stays null. */
    static String text(String text) {
        return text == null ? null : controls(Secrets.redact(text));
    }

    /** {@code text} with its control characters made visible (see the class comment). */
    static String controls(String text) {
        int first = firstControl(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isControl(c)) {
                out.append(c);
            } else if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                // CR LF: the newline that follows is the line end
            } else if (c < 0x20) {
                out.append('^').append((char) (c + '@'));
            } else {
                out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            }
        }
        return out.toString();
    }

    /** Whether {@code c} is shown otherwise than as itself: a C0 control but newline and tab, DEL, a C1 control. */
    static boolean isControl(char c) {
        return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7F && c <= 0x9F);
    }

    private static int firstControl(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (isControl(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
