package dev.bellows.stream.internal;

import tools.jackson.databind.JsonNode;

/**
 * Finds the arguments of one tool block while it streams and reports each one in the call that
 * feeds the character completing its value (docs/stream-format.md, "Argument values as they
 * complete"). Like the {@link NameSniffer}, it is fed every character of the block's content
 * once, in order, in pieces cut anywhere; it never scans a character twice and keeps only the
 * value being completed, so its cost is linear in the block's length.
 *
 * <p>One reader per tool block, made by the block's {@link ToolBodyFormat} only when the option
 * {@code argument-events} is on.
 */
public interface ArgumentReader {

    /** Where a reader reports the arguments it completes. */
    @FunctionalInterface
    public interface Sink {
        void argument(String name, JsonNode value);
    }

    /** Reads {@code text[from, to)}, reporting every argument completed in it. */
    void feed(CharSequence text, int from, int to);

    /**
     * The block's content is complete: its close delimiter arrived or the stream ended. Formats
     * whose last value only ends with the block (a tolerated missing close tag) report it here.
     */
    default void end() {
    }

    /** A reader that reports nothing, for bodies whose arguments cannot be read this way. */
    ArgumentReader NONE = (text, from, to) -> { };
}
