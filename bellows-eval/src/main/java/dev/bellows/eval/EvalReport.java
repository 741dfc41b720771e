package dev.bellows.eval;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A dataset's evaluation: every case, every run, every score; written as {@code report.json}
 * by {@link ReportJson}.
 *
 * @param dataset    the dataset's path, as given
 * @param agent      the agent's name
 * @param model      the model under test
 * @param started    when the evaluation started
 * @param durationMs its wall-clock time
 * @param cases      the cases in dataset order, whatever order their runs finished in
 * @param comparison the comparison with a baseline report, when there was one
 */
public record EvalReport(String dataset, String agent, String model, Instant started, long durationMs,
                         List<CaseResult> cases, Optional<Comparison> comparison) {

    public EvalReport {
        Objects.requireNonNull(dataset, "dataset");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(started, "started");
        cases = List.copyOf(cases);
        Objects.requireNonNull(comparison, "comparison");
    }

    /** The totals of the report's {@code summary}. */
    public record Summary(int cases, int passed, int failed, double passRate) {
    }

    public Summary summary() {
        int passed = (int) cases.stream().filter(CaseResult::passed).count();
        return new Summary(cases.size(), passed, cases.size() - passed, cases.isEmpty() ? 0 : (double) passed / cases.size());
    }

    /** Whether every case passed. */
    public boolean passed() {
        return cases.stream().allMatch(CaseResult::passed);
    }

    /** This report with its comparison to a baseline. */
    public EvalReport withComparison(Comparison comparison) {
        return new EvalReport(dataset, agent, model, started, durationMs, cases, Optional.of(comparison));
    }
}
