package dev.bellows.eval.report;

import tools.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * A report.json as the writers read it: what the spec names, and the optional fields the
 * runner adds (null when absent). Built by {@link ReportReader}, which checks each field's kind.
 */
record Report(String dataset, String agent, String model, String started, Long durationMs, Summary summary,
        List<CaseResult> cases, Comparison comparison) {

    record Summary(int cases, int passed, int failed, double passRate) {
    }

    /** One case; {@code input} is a task (text) or a conversation (an array of messages). */
    record CaseResult(String id, JsonNode input, List<String> tags, Integer repeat, boolean passed, Double passRate,
            Double requiredPassRate, Double passAtK, Double passHatK, List<RunResult> runs) {

        long durationMs() {
            long sum = 0;
            for (RunResult run : runs) {
                sum += run.durationMs() == null ? 0 : run.durationMs();
            }
            return sum;
        }
    }

    /** One run of a case ({@code index} from 1); {@code events} is a JSONL file's path relative to the report's directory. */
    record RunResult(int index, boolean passed, String answer, List<Score> scores, Long durationMs, Integer iterations,
            Long inputTokens, Long outputTokens, String error, String events, Double cost) {
    }

    record Score(String evaluator, boolean passed, Double score, String reason) {
    }

    /** The comparison with a baseline report ({@code --baseline}). */
    record Comparison(String baseline, double margin, boolean regressed, List<Change> cases) {
    }

    record Change(String id, Side before, Side after, boolean regressed, List<String> why) {
    }

    /** A case's figures on one side of the comparison: the mean score of each evaluator. */
    record Side(Boolean passed, Double passRate, Map<String, Double> scores) {
    }
}
