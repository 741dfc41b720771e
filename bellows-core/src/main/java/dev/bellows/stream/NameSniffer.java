package dev.bellows.stream;

/**
 * Finds the called tool's name in one tool block's content while it streams. Every character
 * of the content is fed once, in order, in pieces cut anywhere; the name is returned by the
 * call whose piece holds the character that completes it, and at most once per block.
 */
interface NameSniffer {

    /** Scans {@code text[from, to)}; returns the name if it became known here, else {@code null}. */
    String feed(CharSequence text, int from, int to);

    /** True once the outcome is decided; feeding may then be skipped. */
    boolean isDone();
}
