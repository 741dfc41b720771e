package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

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

    /** Estimated completion tokens of a turn: its reasoning, content and tool calls' arguments together. */
    static long completionTokens(MockTurn turn) {
        long arguments = turn.toolCalls().stream().mapToLong(call -> codePoints(call.arguments())).sum();
        return tokens(codePoints(turn.reasoning()) + codePoints(turn.content()) + arguments);
    }

    /**
     * One streamed piece of an answer: reasoning, content, or a piece of native tool call
     * {@code index} (the first piece of a call carries its {@code id} and {@code name}, and
     * empty arguments).
     */
    record Part(Kind kind, String text, int index, String id, String name) {
        enum Kind { REASONING, CONTENT, TOOL_CALL }
    }

    /**
     * The pieces both mocks stream for an answer turn, in order: the reasoning, the content,
     * then each tool call's start and its arguments; {@code cut_after} counts the content's
     * characters and then the arguments', and nothing is sent past it.
     */
    static List<Part> parts(MockTurn turn) {
        List<Part> parts = new ArrayList<>();
        if (turn.reasoning() != null) {
            split(turn.reasoning(), turn.chunkSize()).forEach(p -> parts.add(new Part(Part.Kind.REASONING, p, 0, null, null)));
        }
        int[] left = {turn.cutAfter() == null ? Integer.MAX_VALUE : turn.cutAfter()};
        cut(turn.content() == null ? "" : turn.content(), turn.chunkSize(), left,
                piece -> parts.add(new Part(Part.Kind.CONTENT, piece, 0, null, null)));
        List<MockToolCall> calls = turn.toolCalls();
        for (int i = 0; i < calls.size() && left[0] > 0; i++) {
            int index = i;
            parts.add(new Part(Part.Kind.TOOL_CALL, "", index, calls.get(i).id(), calls.get(i).name()));
            cut(calls.get(i).arguments(), turn.chunkSize(), left,
                    piece -> parts.add(new Part(Part.Kind.TOOL_CALL, piece, index, null, null)));
        }
        return parts;
    }

    /** The pieces of {@code text} up to the characters {@code left[0]} allows; the cut may shorten a piece. */
    private static void cut(String text, int size, int[] left, java.util.function.Consumer<String> out) {
        for (String piece : split(text, size)) {
            if (left[0] <= 0) {
                return;
            }
            String sent = prefix(piece, left[0]);
            left[0] -= codePoints(sent);
            out.accept(sent);
        }
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
