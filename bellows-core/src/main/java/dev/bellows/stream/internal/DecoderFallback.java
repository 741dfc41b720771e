package dev.bellows.stream.internal;

/**
 * The generic messages a decoder falls back to when it meets something it did not foresee (a
 * bug, never the model's text), and the log line that keeps the cause: the model reads only
 * the generic message, so without the log the cause would be lost. A property test
 * ({@code DecoderFallbackProperties}) shows that generated input never reaches a fallback.
 */
final class DecoderFallback {

    /** The start of a tool call's fallback error. */
    static final String TOOL_CALL = "tool call could not be decoded";

    /** The fallback of {@link StrictJson#read}. */
    static final String JSON = "the JSON could not be read";

    // The content is the model's text: only the exception is logged, at WARNING since it is a bug.
    private static final System.Logger LOG = System.getLogger(DecoderFallback.class.getName());

    private DecoderFallback() {
    }

    /** Logs why {@code decoder} answered with its generic message. */
    static void log(String decoder, Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, () -> decoder + " fell back to its generic error message;"
                + " this is a bug in Bellows, please report it with this trace", cause);
    }
}
