package dev.bellows.eval;

import dev.bellows.provider.TokenUsage;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One run of a case in a report.
 *
 * @param index      which repeat, from 1
 * @param passed     the run ended by itself ({@code error} empty) and every evaluator passed
 * @param answer     the final answer; empty when the run did not end with one
 * @param scores     every evaluator's score, in the case's order, then the runner's own evaluators
 * @param events     the run's events file, relative to the report's directory ({@code /}-separated);
 *                   empty when events were not written
 * @param durationMs the run's wall-clock time
 * @param iterations the loop's model calls
 * @param tokens     the subject's tokens; empty when unknown
 * @param error      why the run failed before its evaluators could pass it; empty when it ended by itself
 * @param cost       what the run cost at the runner's {@link Price prices}; empty when unknown
 */
public record RunResult(int index, boolean passed, String answer, List<Score> scores, String events, long durationMs,
                        int iterations, Optional<TokenUsage> tokens, Optional<String> error, Optional<Double> cost) {

    public RunResult {
        Objects.requireNonNull(answer, "answer");
        scores = List.copyOf(scores);
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(cost, "cost");
    }

    /** This run with its events' reference. */
    RunResult withEvents(String events) {
        return new RunResult(index, passed, answer, scores, events, durationMs, iterations, tokens, error, cost);
    }

    /** A run whose cost is unknown. */
    public RunResult(int index, boolean passed, String answer, List<Score> scores, String events, long durationMs,
                     int iterations, Optional<TokenUsage> tokens, Optional<String> error) {
        this(index, passed, answer, scores, events, durationMs, iterations, tokens, error, Optional.empty());
    }
}
