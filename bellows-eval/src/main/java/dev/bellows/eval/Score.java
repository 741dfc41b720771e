package dev.bellows.eval;

import java.util.Objects;

/**
 * One evaluator's verdict on one run.
 *
 * @param evaluator the evaluator's name ({@code contains}, {@code tools}, {@code judge}, ...)
 * @param passed    whether the run meets the evaluator's expectation
 * @param score     in 0..1: 1 or 0 for yes/no checks, the judge's score for a judge
 * @param reason    why, in a sentence a person reads in the report
 */
public record Score(String evaluator, boolean passed, double score, String reason) {

    public Score {
        Objects.requireNonNull(evaluator, "evaluator");
        Objects.requireNonNull(reason, "reason");
        if (!(score >= 0 && score <= 1)) {
            throw new IllegalArgumentException("a score is in 0..1, got " + score);
        }
    }

    /** A yes/no check that passed: score 1. */
    public static Score pass(String evaluator, String reason) {
        return new Score(evaluator, true, 1, reason);
    }

    /** A yes/no check that failed: score 0. */
    public static Score fail(String evaluator, String reason) {
        return new Score(evaluator, false, 0, reason);
    }
}
