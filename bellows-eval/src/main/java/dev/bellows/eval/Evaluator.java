package dev.bellows.eval;

/**
 * Scores one run of a case. The built-in ones come from a case's {@code expect} keys
 * ({@link Evaluators}); custom ones are written in Java and given to the runner for every case
 * ({@link EvalRunner.Builder#evaluator(Evaluator)}) or registered for an {@code expect} key of
 * their own ({@link DatasetReader#expectation(String, ExpectationFactory)}).
 *
 * <p>Implementations must be thread-safe: runs are evaluated in parallel.
 *
 * <pre>{@code
 * Evaluator polite = Evaluator.of("polite", run -> run.answer().contains("please")
 *         ? Score.pass("polite", "says please") : Score.fail("polite", "never says please"));
 * }</pre>
 */
public interface Evaluator {

    /** The name the report shows for this evaluator's scores; one name per kind of check. */
    String name();

    /**
     * Scores the run. A run that failed before it ended ({@link RunRecord#error()}) is scored
     * too: most checks then fail on the empty answer.
     *
     * @throws InterruptedException when the thread is interrupted while the evaluator waits (a judge's model call)
     */
    Score evaluate(RunRecord run, EvalContext context) throws InterruptedException;

    /** An evaluator from a name and a function of the run alone. */
    static Evaluator of(String name, java.util.function.Function<RunRecord, Score> check) {
        java.util.Objects.requireNonNull(name, "name");
        java.util.Objects.requireNonNull(check, "check");
        return new Evaluator() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Score evaluate(RunRecord run, EvalContext context) {
                return check.apply(run);
            }
        };
    }
}
