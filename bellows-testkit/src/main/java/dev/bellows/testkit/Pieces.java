package dev.bellows.testkit;

import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;

/** Splitting scripted text the way both mocks stream it, and the token estimate they report. */
final class Pieces {

    private Pieces() {
    }

    /**
     * {@code text} in pieces of {@code size} code points (the last may be shorter); a
     * surrogate pair is never split. The empty text has no pieces.
     */
    static List<String> split(String text, int size) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.offsetByCodePoints(start, Math.min(size, text.codePointCount(start, text.length())));
            pieces.add(text.substring(start, end));
            start = end;
        }
        return pieces;
    }

    /** The first {@code count} code points of {@code text} (all of it when it is shorter). */
    static String prefix(String text, int count) {
        int length = text.codePointCount(0, text.length());
        return count >= length ? text : text.substring(0, text.offsetByCodePoints(0, count));
    }

    static int codePoints(String text) {
        return text == null ? 0 : text.codePointCount(0, text.length());
    }

    /** The documented estimate: one token per 4 code points, rounded up. */
    static long tokens(long codePoints) {
        return (codePoints + 3) / 4;
    }

    /** Estimated completion tokens of a turn: its reasoning and content together. */
    static long completionTokens(MockTurn turn) {
        return tokens(codePoints(turn.reasoning()) + codePoints(turn.content()));
    }

    /** Estimated prompt tokens: the text of every message. */
    static long promptTokens(List<Message> messages) {
        long total = 0;
        for (Message message : messages) {
            total += codePoints(message.content());
        }
        return tokens(total);
    }
}
