package dev.bellows.format;

/**
 * Reads the sections of one answer as it streams: feed the text in pieces cut anywhere,
 * then {@link #finish()}. Each character is looked at a bounded number of times, so a whole
 * answer costs what one {@link TextFormat#parse} of it costs, and the result is the same
 * whatever the pieces. One reader per answer, from one thread.
 */
public interface SectionReader {

    /** Reads more of the answer, telling the listener what it now knows for certain. */
    void append(CharSequence text);

    /**
     * Ends the answer: what was held back is decided, the last sections complete.
     *
     * @return exactly what {@link TextFormat#parse} returns for the whole text
     * @throws TextFormatException as {@link TextFormat#parse} does
     */
    java.util.Map<String, java.util.List<String>> finish() throws TextFormatException;
}
