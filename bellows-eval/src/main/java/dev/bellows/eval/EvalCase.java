package dev.bellows.eval;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import dev.bellows.provider.Message;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * One case of a dataset: what the agent is asked, and what its answer and run must show.
 *
 * @param id                   unique in its dataset
 * @param input                the case's {@code input} as written: a string (the task) or a
 *                             conversation (an array of {@code {"role", "content"}}, the last the
 *                             user's); frozen (read-only; a copy unless frozen already)
 * @param task                 the user's message the run starts on (the conversation's last)
 * @param history              the conversation before the task (empty for a string input)
 * @param evaluators           one per {@code expect} key, in the order written
 * @param repeat               how many times the case runs; empty: the runner's {@code --repeat}
 * @param passRate             the share of runs that must pass, in 0..1; empty: 1.0
 * @param maxIterations        the case's {@code expect.max_iterations}: a limit the agent may be
 *                             built with, as well as checked; empty when not given
 * @param tags                 the case's tags
 * @param line                 the line the case starts on in its file
 */
public record EvalCase(String id, JsonNode input, String task, List<Message> history, List<Evaluator> evaluators,
                       OptionalInt repeat, OptionalDouble passRate, OptionalInt maxIterations, List<String> tags,
                       int line) {

    public EvalCase {
        Objects.requireNonNull(id, "id");
        input = FrozenJson.freeze(Objects.requireNonNull(input, "input"));
        Objects.requireNonNull(task, "task");
        history = List.copyOf(history);
        evaluators = List.copyOf(evaluators);
        Objects.requireNonNull(repeat, "repeat");
        Objects.requireNonNull(passRate, "passRate");
        Objects.requireNonNull(maxIterations, "maxIterations");
        tags = List.copyOf(tags);
    }

    /** A case asking {@code task}, checked by {@code evaluators}, run once, all runs to pass: for cases built in Java. */
    public static EvalCase of(String id, String task, Evaluator... evaluators) {
        return new EvalCase(id, tools.jackson.databind.node.StringNode.valueOf(task), task, List.of(),
                List.of(evaluators), OptionalInt.empty(), OptionalDouble.empty(), OptionalInt.empty(), List.of(), 0);
    }

    /** How many times the case runs when the runner is told {@code defaultRepeat}. */
    public int repeatOr(int defaultRepeat) {
        return repeat.orElse(defaultRepeat);
    }

    /** The share of runs that must pass. */
    public double requiredPassRate() {
        return passRate.orElse(1.0);
    }
}
