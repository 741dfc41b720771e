package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;
import dev.bellows.provider.TokenUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    /** A case whose runs scored these judge scores; a run passes at 0.5 or more. */
    private static CaseResult judged(String id, double required, double... scores) {
        List<RunResult> runs = new ArrayList<>();
        for (int i = 0; i < scores.length; i++) {
            boolean passed = scores[i] >= 0.5;
            runs.add(new RunResult(i + 1, passed, "answer", List.of(new Score("judge", passed, scores[i], "why")),
                    "events/" + id + "/run-" + (i + 1) + ".jsonl", 10, 1, Optional.of(new TokenUsage(5, 2)),
                    Optional.empty()));
        }
        return new CaseResult(id, StringNode.valueOf("task"), List.of(), required, runs);
    }

    private static EvalReport report(CaseResult... cases) {
        return new EvalReport("cases.jsonl", "default", "mock", Instant.EPOCH, 5, List.of(cases), Optional.empty());
    }

    private static JsonNode json(EvalReport report) {
        return ReportJson.toJson(report);
    }

    @Test
    void aCaseThatPassedAndFailsNowRegresses() {
        JsonNode before = json(report(judged("a", 1, 0.9), judged("b", 1, 0.2)));
        Comparison comparison = Comparison.of("old.json", before, report(judged("a", 1, 0.3), judged("b", 1, 0.8)), 0.05);
        assertThat(comparison.regressed()).isTrue();
        Comparison.CaseComparison a = comparison.cases().get(0);
        assertThat(a.regressed()).isTrue();
        assertThat(a.why()).containsExactly("passed before, fails now", "pass rate fell from 100.0% to 0.0%",
                "judge mean score fell from 0.9 to 0.3");
        Comparison.CaseComparison b = comparison.cases().get(1);
        assertThat(b.regressed()).isFalse();
        assertThat(b.why()).containsExactly("failed before, passes now");
    }

    @Test
    void aScoreOrRateMayFallWithinTheMargin() {
        JsonNode before = json(report(judged("a", 0.5, 0.9, 0.9, 0.9, 0.9)));
        assertThat(Comparison.of("old.json", before, report(judged("a", 0.5, 0.86, 0.86, 0.86, 0.86)), 0.05)
                .regressed()).isFalse();
        Comparison scoreFell = Comparison.of("old.json", before, report(judged("a", 0.5, 0.8, 0.8, 0.8, 0.8)), 0.05);
        assertThat(scoreFell.regressed()).isTrue();
        assertThat(scoreFell.cases().getFirst().why()).containsExactly("judge mean score fell from 0.9 to 0.8");
        // still passing at its rate, but one run of four fails now: the rate fell by 25 points
        Comparison rateFell = Comparison.of("old.json", before, report(judged("a", 0.5, 0.9, 0.9, 0.9, 0.4)), 0.3);
        assertThat(rateFell.regressed()).isFalse();
        assertThat(Comparison.of("old.json", before, report(judged("a", 0.5, 0.9, 0.9, 0.9, 0.4)), 0.2).regressed()).isTrue();
    }

    @Test
    void newAndRemovedCasesAreListedAndNeverRegress() {
        JsonNode before = json(report(judged("gone", 1, 0.9)));
        Comparison comparison = Comparison.of("old.json", before, report(judged("new", 1, 0.1)), 0.05);
        assertThat(comparison.regressed()).isFalse();
        assertThat(comparison.cases()).extracting(Comparison.CaseComparison::id).containsExactly("new", "gone");
        assertThat(comparison.cases().get(0).before()).isEmpty();
        assertThat(comparison.cases().get(0).why()).containsExactly("new case: fails");
        assertThat(comparison.cases().get(1).after()).isEmpty();
    }

    @Test
    void theComparisonIsWrittenIntoTheReport() {
        EvalReport now = report(judged("a", 1, 0.3));
        JsonNode before = json(report(judged("a", 1, 0.9)));
        JsonNode json = ReportJson.toJson(now.withComparison(Comparison.of("old.json", before, now, 0.05)));
        JsonNode comparison = json.get("comparison");
        assertThat(comparison.get("baseline").asString()).isEqualTo("old.json");
        assertThat(comparison.get("margin").asDouble()).isEqualTo(0.05);
        assertThat(comparison.get("regressed").asBoolean()).isTrue();
        JsonNode a = comparison.get("cases").get(0);
        assertThat(a.get("before").get("passed").asBoolean()).isTrue();
        assertThat(a.get("before").get("scores").get("judge").asDouble()).isEqualTo(0.9);
        assertThat(a.get("after").get("pass_rate").asDouble()).isEqualTo(0.0);
        assertThat(a.get("why").get(0).asString()).isEqualTo("passed before, fails now");
    }

    @Test
    void aFileThatIsNotAReportIsRefused() {
        assertThatThrownBy(() -> Comparison.of("x.json", Runs.json("{\"summary\": {}}"), report(), 0.05))
                .hasMessage("not an evaluation report: it has no \"cases\" list");
    }

    @Test
    void theReportHasEveryFieldOfTheContract() {
        JsonNode json = ReportJson.toJson(report(judged("a", 1, 0.9)));
        assertThat(json.propertyNames()).containsExactly("dataset", "agent", "model", "started", "duration_ms",
                "summary", "cases");
        assertThat(json.get("started").asString()).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(json.get("summary").propertyNames()).containsExactly("cases", "passed", "failed", "pass_rate");
        JsonNode c = json.get("cases").get(0);
        assertThat(c.propertyNames()).containsExactly("id", "passed", "input", "tags", "repeat", "pass_rate",
                "required_pass_rate", "pass_at_k", "pass_hat_k", "runs");
        JsonNode run = c.get("runs").get(0);
        assertThat(run.propertyNames()).containsExactly("index", "passed", "answer", "scores", "events",
                "duration_ms", "iterations", "tokens");
        assertThat(run.get("tokens").toString()).isEqualTo("{\"input\":5,\"output\":2}");
        assertThat(run.get("scores").get(0).propertyNames())
                .containsExactly("evaluator", "passed", "score", "reason");
    }
}
