package dev.bellows.stream.internal;

/**
 * Finds the called tool's name in one tool block's content while it streams. Every character
 * of the content is fed once, in order, in pieces cut anywhere; the name is returned by the
 * call whose piece holds the character that completes it, and at most once per block.
 */
interface NameSniffer {

    /** Scans {@code text[from, to)}; returns the name if it became known here, else {@code null}. */
    String feed(CharSequence text, int from, int to);

    /**
     * The name if it is complete once {@code next} follows what was fed, whatever {@code next}
     * turns out to be (content, or the start of a delimiter that is not content), else
     * {@code null}; nothing is consumed when it is not. A name ended by a delimiter is so
     * announced with that delimiter's first character, not once the delimiter is recognised.
     */
    default String endsBefore(char next) {
        return null;
    }

    /** True once the outcome is decided; feeding may then be skipped. */
    boolean isDone();
}
