package dev.bellows.eval;

import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A report against a baseline report (an earlier {@code report.json}): a case regressed when it
 * passed there and fails now, or when its pass rate or an evaluator's mean score fell by more
 * than the margin. Cases new in this report, or gone from it, are listed and never regress.
 *
 * @param baseline  the baseline's path, as given
 * @param margin    how far a rate or a mean score may fall without counting
 * @param regressed whether any case regressed
 * @param cases     this report's cases in its order, then the baseline's cases it no longer has
 */
public record Comparison(String baseline, double margin, boolean regressed, List<CaseComparison> cases) {

    /** What a report says of one case: its verdict, pass rate, and each evaluator's mean score. */
    public record Side(boolean passed, double passRate, Map<String, Double> scores) {
        public Side {
            scores = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scores));
        }
    }

    /**
     * One case in both reports.
     *
     * @param before the baseline's side; empty for a new case
     * @param after  this report's side; empty for a case no longer in the dataset
     * @param why    each regression, in words; for a case that did not regress, what changed (may be empty)
     */
    public record CaseComparison(String id, Optional<Side> before, Optional<Side> after, boolean regressed, List<String> why) {
        public CaseComparison {
            why = List.copyOf(why);
        }
    }

    public Comparison {
        Objects.requireNonNull(baseline, "baseline");
        cases = List.copyOf(cases);
    }

    /**
     * Compares {@code report} with {@code baseline}, a report read back from its JSON.
     *
     * @throws IllegalArgumentException when {@code baseline} is not a report (the message says what is missing)
     */
    public static Comparison of(String baselinePath, JsonNode baseline, EvalReport report, double margin) {
        Map<String, Side> before = sides(baseline);
        List<CaseComparison> cases = new ArrayList<>();
        for (CaseResult result : report.cases()) {
            cases.add(compare(result, before, margin));
        }
        return of(baselinePath, before, cases, margin);
    }

    /** The comparison of {@code compared}, this report's cases compared in its order, and then the baseline's cases it no longer has. */
    static Comparison of(String baselinePath, Map<String, Side> before, List<CaseComparison> compared, double margin) {
        List<CaseComparison> cases = new ArrayList<>(compared);
        Set<String> seen = new LinkedHashSet<>();
        boolean any = false;
        for (CaseComparison c : compared) {
            seen.add(c.id());
            any |= c.regressed();
        }
        before.forEach((id, was) -> {
            if (!seen.contains(id)) {
                cases.add(new CaseComparison(id, Optional.of(was), Optional.empty(), false,
                        List.of("no longer in the dataset")));
            }
        });
        return new Comparison(baselinePath, margin, any, cases);
    }

    /** One case of this report against the baseline's sides (its case of the same id, if any). */
    static CaseComparison compare(CaseResult result, Map<String, Side> before, double margin) {
        Side after = new Side(result.passed(), result.passRate(), result.meanScores());
        Side was = before.get(result.id());
        List<String> why = new ArrayList<>();
        boolean regressed = false;
        if (was == null) {
            why.add("new case: " + (after.passed() ? "passes" : "fails"));
        } else {
            if (was.passed() && !after.passed()) {
                regressed = true;
                why.add("passed before, fails now");
            } else if (!was.passed() && after.passed()) {
                why.add("failed before, passes now");
            }
            if (after.passRate() < was.passRate() - margin - 1e-9) {
                regressed = true;
                why.add("pass rate fell from " + percent(was.passRate()) + " to " + percent(after.passRate()));
            }
            for (Map.Entry<String, Double> score : after.scores().entrySet()) {
                Double old = was.scores().get(score.getKey());
                if (old != null && score.getValue() < old - margin - 1e-9) {
                    regressed = true;
                    why.add(score.getKey() + " mean score fell from " + round(old) + " to " + round(score.getValue()));
                }
            }
        }
        return new CaseComparison(result.id(), Optional.ofNullable(was), Optional.of(after), regressed, why);
    }

    /**
     * Each case of {@code baseline} by its id.
     *
     * @throws IllegalArgumentException when {@code baseline} is not a report
     */
    static Map<String, Side> sides(JsonNode baseline) {
        JsonNode cases = baseline.path("cases");
        if (!cases.isArray()) {
            throw new IllegalArgumentException("not an evaluation report: it has no \"cases\" list");
        }
        Map<String, Side> sides = new LinkedHashMap<>();
        for (int i = 0; i < cases.size(); i++) {
            JsonNode c = cases.get(i);
            if (!c.path("id").isString() || !c.path("passed").isBoolean() || !c.path("runs").isArray()) {
                throw new IllegalArgumentException("not an evaluation report: cases[" + i + "] lacks an id, passed or runs");
            }
            JsonNode runs = c.get("runs");
            int passed = 0;
            Map<String, double[]> sums = new LinkedHashMap<>();
            for (JsonNode run : runs) {
                if (run.path("passed").asBoolean(false)) {
                    passed++;
                }
                for (JsonNode score : run.path("scores")) {
                    double[] sum = sums.computeIfAbsent(score.path("evaluator").asString(""), e -> new double[2]);
                    sum[0] += score.path("score").asDouble(0);
                    sum[1]++;
                }
            }
            double rate = c.path("pass_rate").isNumber() ? c.get("pass_rate").asDouble()
                    : runs.isEmpty() ? 0 : (double) passed / runs.size();
            Map<String, Double> means = new LinkedHashMap<>();
            sums.forEach((name, sum) -> means.put(name, sum[0] / sum[1]));
            sides.put(c.get("id").asString(), new Side(c.get("passed").asBoolean(), rate, means));
        }
        return sides;
    }

    private static String percent(double rate) {
        return Math.round(rate * 1000) / 10.0 + "%";
    }

    private static String round(double score) {
        return String.valueOf(Math.round(score * 1000) / 1000.0);
    }
}
