package dev.bellows.eval;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A case's runs and what they add up to.
 *
 * @param id               the case's id
 * @param input            the case's input as written, frozen (read-only; a copy unless frozen already)
 * @param tags             the case's tags
 * @param requiredPassRate the share of runs that must pass
 * @param runs             the runs, by index
 */
public record CaseResult(String id, JsonNode input, List<String> tags, double requiredPassRate, List<RunResult> runs) {

    public CaseResult {
        Objects.requireNonNull(id, "id");
        input = FrozenJson.freeze(Objects.requireNonNull(input, "input"));
        tags = List.copyOf(tags);
        runs = List.copyOf(runs);
    }

    /** How many times the case ran. */
    public int repeat() {
        return runs.size();
    }

    /** How many runs passed. */
    public int passedRuns() {
        int passed = 0;
        for (RunResult run : runs) {       // a loop, not a stream: a case's figures ask for it several times
            passed += run.passed() ? 1 : 0;
        }
        return passed;
    }

    /** The share of runs that passed (0 without runs). */
    public double passRate() {
        return runs.isEmpty() ? 0 : (double) passedRuns() / runs.size();
    }

    /** Whether the pass rate reaches the required one. */
    public boolean passed() {
        return !runs.isEmpty() && passRate() >= requiredPassRate - 1e-9;
    }

    /** pass@k for k = the repeats: the chance that at least one of k runs passes (1 when any run passed). */
    public double passAtK() {
        return PassAtK.passAtK(runs.size(), passedRuns(), runs.size());
    }

    /** pass^k for k = the repeats: the chance that all of k runs pass (1 when every run passed). */
    public double passHatK() {
        return PassAtK.passHatK(runs.size(), passedRuns(), runs.size());
    }

    /** Each evaluator's mean score over the runs that have it, in the order evaluators first appear. */
    public Map<String, Double> meanScores() {
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (RunResult run : runs) {
            for (Score score : run.scores()) {
                double[] sum = sums.computeIfAbsent(score.evaluator(), e -> new double[2]);
                sum[0] += score.score();
                sum[1]++;
            }
        }
        Map<String, Double> means = new LinkedHashMap<>();
        sums.forEach((name, sum) -> means.put(name, sum[0] / sum[1]));
        return means;
    }
}
