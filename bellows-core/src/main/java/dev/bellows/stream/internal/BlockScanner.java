package dev.bellows.stream.internal;

/**
 * What the stream processor needs from a scanner: it splits message-typed text into plain
 * text and thinking and tool blocks, and tells a {@link TagScanner.Sink} what it finds. The
 * {@code bellows} dialect uses {@link TagScanner} (XML-like tags with attributes); every other
 * dialect uses {@link MarkerScanner}, driven by the dialect's delimiters.
 */
public interface BlockScanner {

    /** Scans one chunk of message text. */
    void scan(String text);

    /** A pending open candidate in message text becomes plain text (provider-typed thinking arrived). */
    void releaseOpenTagCandidate();

    /** End of stream: a pending candidate becomes text. */
    void finish();

    /** Whether a thinking or tool block is open. */
    boolean inBlock();

    /** Starts inside a thinking block ({@code thinking-open}). */
    void enterOpenThinkingBlock();
}
