package dev.bellows.eval;

import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One run of a case, as evaluators see it: the answer, how the loop ended, every event, and
 * the run's figures (the subject's alone: a judge's calls are never counted here).
 *
 * @param evalCase   the case
 * @param index      which repeat, from 1
 * @param answer     the final answer (the {@code loop_end} result); empty when the run ended otherwise
 * @param endReason  how the loop ended; empty when the run could not start
 * @param events     every event of the run, {@code loop_start} to {@code loop_end}
 * @param iterations the model calls the loop made ({@code iteration_start} events)
 * @param tokens     the model's reported usage summed over the run; empty when the agent was built
 *                   without the runner's {@link RunProbe}
 * @param durationMs from start to {@code loop_end}, wall-clock
 * @param error      why the run failed (did not end through {@code task_completion},
 *                   {@code ask_question} or {@code converse}, or could not start); empty otherwise
 * @param cost       what the run's tokens cost at the runner's {@link Price prices}, its sub-agents'
 *                   included; empty without prices, when the tokens are unknown, or when it called a
 *                   model without a price
 */
public record RunRecord(EvalCase evalCase, int index, String answer, Optional<LoopEndReason> endReason,
                        List<AgentEvent> events, int iterations, Optional<TokenUsage> tokens, long durationMs,
                        Optional<String> error, Optional<Double> cost) {

    public RunRecord {
        Objects.requireNonNull(evalCase, "evalCase");
        Objects.requireNonNull(answer, "answer");
        Objects.requireNonNull(endReason, "endReason");
        events = List.copyOf(events);
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(cost, "cost");
    }

    /** A run whose cost is unknown. */
    public RunRecord(EvalCase evalCase, int index, String answer, Optional<LoopEndReason> endReason,
                     List<AgentEvent> events, int iterations, Optional<TokenUsage> tokens, long durationMs,
                     Optional<String> error) {
        this(evalCase, index, answer, endReason, events, iterations, tokens, durationMs, error, Optional.empty());
    }

    /**
     * The run's tool calls in the order they ended, without the one that ended the loop
     * ({@code task_completion}, {@code ask_question} or {@code converse}): what a tool
     * trajectory is compared with.
     */
    public List<CalledTool> toolCalls() {
        List<CalledTool> calls = new ArrayList<>();
        for (AgentEvent event : events) {
            switch (event) {
                case LoopEvent.ToolResultEvent result -> calls.add(
                        new CalledTool(result.serverName(), result.toolName(), result.arguments(), false));
                case LoopEvent.ToolResultError error -> calls.add(new CalledTool(
                        error.serverName() == null ? "" : error.serverName(),
                        error.toolName() == null ? "" : error.toolName(),
                        JsonNodeFactory.instance.objectNode(), true));
                default -> { }
            }
        }
        // The call that ends the loop reports its text as a tool_result, the last one; a loop
        // that ends otherwise (a ReAct answer section) has no such call to leave out.
        if (endReason.isPresent() && endReason.get().successful() && !calls.isEmpty()) {
            CalledTool last = calls.getLast();
            if (!last.failed() && last.toolName().equals(endReason.get().wireName())
                    && last.serverName().equals(dev.bellows.tool.ToolCall.LOCAL_SERVER)) {
                calls.removeLast();
            }
        }
        return calls;
    }

    /** The run's failed tool calls' errors, in order: what the model read for each. */
    public List<String> toolErrors() {
        List<String> errors = new ArrayList<>();
        for (AgentEvent event : events) {
            if (event instanceof LoopEvent.ToolResultError error) {
                errors.add((error.toolName() == null ? "an undecodable call" : error.toolName()) + ": " + error.error());
            }
        }
        return errors;
    }

    /** Whether the run ended through {@code task_completion}, {@code ask_question} or {@code converse}. */
    public boolean completed() {
        return error.isEmpty();
    }
}
