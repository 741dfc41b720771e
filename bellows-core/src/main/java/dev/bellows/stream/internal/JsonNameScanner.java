package dev.bellows.stream.internal;

import dev.bellows.stream.internal.ToolNameSniffer.Step;
import java.util.Set;

/**
 * The JSON half of {@link ToolNameSniffer}: reads the members of the top-level object
 * (whose {@code {} the sniffer already consumed) until the first one whose key is
 * {@code tool_name}, {@code name} or {@code tool}, and reports that member's value when its
 * closing quote arrives.
 *
 * <p>Only strings, nesting, keys and colons are tracked; everything else is left to the full
 * parse at the block's close. Top-level keys and the name value are decoded (a key can be
 * written {@code "n\u0061me"}); every other string is only skipped, which needs nothing but
 * {@code \"} and {@code \\} to be recognised.
 */
final class JsonNameScanner implements ToolNameSniffer.BodyScanner {

    private static final Set<String> NAME_KEYS = Set.of("tool_name", "name", "tool");
    /** Longest name key: a key that decodes to more characters cannot be one. */
    private static final int MAX_NAME_KEY = 9;

    private enum State {
        /** At the top level where a key may start: after the opening brace or a comma. */
        EXPECT_KEY,
        /** Inside a top-level key. */
        KEY,
        /** After a name key, before its colon. */
        AFTER_NAME_KEY,
        /** After the name key's colon, before its value. */
        BEFORE_NAME_VALUE,
        /** Inside the name's string value. */
        NAME_VALUE,
        /** In the rest of a member that does not decide (its value, nested or not). */
        SKIP_MEMBER,
        /** Inside a string that is skipped. */
        SKIP_STRING,
        /** Just after a backslash in a skipped string: the next character is taken as is. */
        SKIP_STRING_ESCAPE
    }

    private State state = State.EXPECT_KEY;
    /** Nesting depth of objects and arrays; the top-level object is 1. */
    private int depth = 1;
    private final JsonStringDecoder string = new JsonStringDecoder();
    private String name;

    @Override
    public Step accept(char c) {
        switch (state) {
            case EXPECT_KEY -> {
                if (c == '"') {
                    string.start(MAX_NAME_KEY);
                    state = State.KEY;
                } else if (!ToolNameSniffer.isWhitespace(c)) {
                    // Not a key ('}' of an empty object, or invalid JSON): structure only.
                    state = State.SKIP_MEMBER;
                    return skip(c);
                }
            }
            case KEY -> {
                switch (string.accept(c)) {
                    case MORE -> { }
                    // An undecodable key might have been the name key: the outcome is unknowable
                    // and the full parse will reject the JSON anyway.
                    case INVALID -> {
                        return Step.NONE;
                    }
                    case END -> {
                        String key = string.value(); // null when longer than any name key
                        state = key != null && NAME_KEYS.contains(key) ? State.AFTER_NAME_KEY : State.SKIP_MEMBER;
                    }
                }
            }
            case AFTER_NAME_KEY -> {
                if (c == ':') {
                    state = State.BEFORE_NAME_VALUE;
                } else if (!ToolNameSniffer.isWhitespace(c)) {
                    return Step.NONE; // the first name key has no value: no member, no name
                }
            }
            case BEFORE_NAME_VALUE -> {
                if (c == '"') {
                    string.start(Integer.MAX_VALUE);
                    state = State.NAME_VALUE;
                } else if (!ToolNameSniffer.isWhitespace(c)) {
                    return Step.NONE; // a number, object, null...: the first name member decides
                }
            }
            case NAME_VALUE -> {
                switch (string.accept(c)) {
                    case MORE -> { }
                    case INVALID -> {
                        return Step.NONE;
                    }
                    case END -> {
                        name = string.value();
                        return name.isEmpty() ? Step.NONE : Step.FOUND;
                    }
                }
            }
            case SKIP_MEMBER -> {
                return skip(c);
            }
            case SKIP_STRING -> {
                if (c == '\\') {
                    state = State.SKIP_STRING_ESCAPE;
                } else if (c == '"') {
                    state = State.SKIP_MEMBER;
                }
            }
            case SKIP_STRING_ESCAPE -> state = State.SKIP_STRING;
        }
        return Step.MORE;
    }

    /** Tracks the structure of a member that does not decide, until the next top-level key. */
    private Step skip(char c) {
        switch (c) {
            case '"' -> state = State.SKIP_STRING;
            case '{', '[' -> depth++;
            case '}', ']' -> {
                if (--depth == 0) {
                    return Step.NONE; // the top-level object closed without a name member
                }
            }
            case ',' -> {
                if (depth == 1) {
                    state = State.EXPECT_KEY;
                }
            }
            default -> { }
        }
        return Step.MORE;
    }

    @Override
    public String name() {
        return name;
    }
}
