package dev.bellows.temporal.internal;

/**
 * What a tool call gave, as the tool-call activity records it: the text the model reads (the
 * output as the tool chain renders it, cut to {@link ToolActivitiesImpl#MAX_RESULT_BYTES}) or the
 * error. Failures of the tool are values, never activity failures: only a lost worker makes
 * Temporal run a call again.
 *
 * @param error null on success; else the error the model reads
 */
public record ToolOutcome(String text, String error) {

    static ToolOutcome success(String text) {
        return new ToolOutcome(text, null);
    }

    static ToolOutcome failure(String error) {
        return new ToolOutcome(null, error);
    }
}
