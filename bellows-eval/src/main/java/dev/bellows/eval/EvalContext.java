package dev.bellows.eval;

import java.util.Objects;
import java.util.Optional;

/**
 * What an evaluator may use besides the run: the judge's model, when one is configured.
 *
 * @param judge the model a {@code judge} expectation asks; empty when none is configured
 */
public record EvalContext(Optional<JudgeModel> judge) {

    public EvalContext {
        Objects.requireNonNull(judge, "judge");
    }

    /** A context without a judge. */
    public static EvalContext none() {
        return new EvalContext(Optional.empty());
    }
}
