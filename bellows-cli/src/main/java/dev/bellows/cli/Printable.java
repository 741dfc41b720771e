package dev.bellows.cli;

/**
 * Text that came from a model, a tool or a server, made safe for a terminal: its control
 * characters (C0 and C1, but newline and tab) written out as {@code \u001b} and the like, so
 * that only Bellows' own styling sends escape sequences.
 */
final class Printable {

    private Printable() {
    }

    static String of(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (c == '\n' || c == '\t' || !Character.isISOControl(c)) {
                out.appendCodePoint(c);
            } else {
                out.append(String.format("\\u%04x", c));
            }
        });
        return out.toString();
    }
}
