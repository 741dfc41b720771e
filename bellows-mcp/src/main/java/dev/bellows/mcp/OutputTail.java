package dev.bellows.mcp;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The last lines a server wrote to its standard error, for the reason a failure is reported
 * with: servers say why they cannot start there ("Error: ENOENT ..."). Bounded in lines and
 * characters so that a chatty server costs nothing.
 */
final class OutputTail {

    static final int MAX_LINES = 12;
    static final int MAX_LINE_CHARS = 300;

    private final Deque<String> lines = new ArrayDeque<>();

    synchronized void add(String line) {
        String stripped = line.strip();
        if (stripped.isEmpty()) {
            return;
        }
        lines.addLast(stripped.length() > MAX_LINE_CHARS ? stripped.substring(0, MAX_LINE_CHARS) + "…" : stripped);
        while (lines.size() > MAX_LINES) {
            lines.removeFirst();
        }
    }

    /** {@code "; stderr: line 1 | line 2"}, or empty when the server wrote nothing. */
    synchronized String suffix() {
        return lines.isEmpty() ? "" : "; stderr: " + String.join(" | ", lines);
    }
}
