package dev.bellows.stream.internal;

import java.util.Optional;

/**
 * Why a text is not one JSON value, in words people and models act on ("expected a key in
 * double quotes but found '}': remove the trailing comma") with the line and column, instead
 * of Jackson's messages, which name its features and quote its internals. For every message
 * about JSON a user or a model reads: config files, scripts, input lines, a provider's events.
 */
public final class JsonSyntax {

    private JsonSyntax() {
    }

    /**
     * Where and what is wrong with the text as JSON ({@code line 1, column 15: expected a key
     * in double quotes but found '}': remove the trailing comma}); empty when it is exactly one
     * valid JSON value.
     */
    public static Optional<String> problem(String text) {
        if (text == null) {
            return Optional.of("there is no JSON value");
        }
        try {
            StrictJson.read(text);
            return Optional.empty();
        } catch (SyntaxError e) {
            return Optional.of(position(text, e.offset()) + ": " + e.problem());
        }
    }

    /** {@code line L, column C}, counted from 1, for an offset into the text. */
    static String position(String text, int offset) {
        int line = 1;
        int column = 1;
        for (int i = 0; i < Math.min(offset, text.length()); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        return "line " + line + ", column " + column;
    }
}
