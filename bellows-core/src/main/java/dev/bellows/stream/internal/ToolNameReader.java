package dev.bellows.stream.internal;

/**
 * Finds the name of the tool a call's text names while that text streams, by the rules of
 * the tool blocks' early name (stream contract, "Early tool-name detection"): leading
 * whitespace and one Markdown fence line skipped, then a JSON object's {@code tool_name} /
 * {@code name} / {@code tool} member or an XML {@code <tool_name>} element. For call text that
 * is not inside a tool block, such as a ReAct {@code action} section.
 *
 * <p>Each character is looked at once; after the outcome is known, feeding costs nothing.
 * One reader per call text, from one thread.
 */
public final class ToolNameReader {

    private final ToolNameSniffer sniffer = new ToolNameSniffer();

    /** Reads more of the call's text; returns the name if this piece completed it (at most once), else null. */
    public String feed(CharSequence text) {
        if (sniffer.isDone()) {
            return null;
        }
        return sniffer.feed(text, 0, text.length());
    }
}
