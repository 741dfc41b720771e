package dev.bellows.tool;

import java.util.Locale;
import java.util.Optional;

/**
 * Why an agent run ended: the {@code reason} of the {@code loop_end} event. The first three
 * are the loop-breaking built-in tools (the model finished its turn); the others are the
 * agent stopping it.
 */
public enum LoopEndReason {

    /** The model called {@code task_completion}: the result is its answer. */
    TASK_COMPLETION,
    /** The model called {@code ask_question}: the result is the question for the user. */
    ASK_QUESTION,
    /** The model called {@code converse}, or the agent is a plain chat: the result is the reply. */
    CONVERSE,
    /** The iteration limit was reached before the model ended its turn. */
    MAX_ITERATIONS,
    /** Too many errors in a row (unknown tools, bad arguments, failing tools, no tool call). */
    CIRCUIT_BREAKER,
    /** The model call failed for good, or something inside the loop broke: the result says what. */
    ERROR,
    /** The run was cancelled. */
    CANCELLED,
    /**
     * The run stopped at tool calls that wait: for a person's approval, or for a result from
     * outside the run. The result lists them; a resume with a decision for each carries the run
     * on (the CLI's exit status 3).
     */
    INTERRUPTED;

    /** Made once: asked for by every run's end (its event written, an evaluation's checks). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The wire name: {@code task_completion}, {@code max_iterations}, ... */
    public String wireName() {
        return wireName;
    }

    /**
     * True when the model ended its own turn ({@code task_completion}, {@code ask_question},
     * {@code converse}): the CLI's exit status 0.
     */
    public boolean successful() {
        return this == TASK_COMPLETION || this == ASK_QUESTION || this == CONVERSE;
    }

    /** The reason with this wire name, if there is one. */
    public static Optional<LoopEndReason> fromWireName(String wireName) {
        for (LoopEndReason reason : values()) {
            if (reason.wireName().equals(wireName)) {
                return Optional.of(reason);
            }
        }
        return Optional.empty();
    }
}
