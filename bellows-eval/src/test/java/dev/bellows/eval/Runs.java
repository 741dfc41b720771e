package dev.bellows.eval;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs built by hand, for evaluators' tests: a builder of a run's events. */
final class Runs {

    static final ObjectMapper MAPPER = Jackson.JSON;

    private final List<AgentEvent> events = new ArrayList<>();
    private int iterations;
    private TokenUsage tokens;
    private long durationMs;

    static Runs run() {
        Runs runs = new Runs();
        runs.events.add(new LoopEvent.LoopStart("task"));
        return runs;
    }

    Runs iteration() {
        events.add(new LoopEvent.IterationStart(++iterations));
        return this;
    }

    Runs call(String tool, String arguments) {
        events.add(new LoopEvent.ToolResultEvent("local", tool, json(arguments), "ok"));
        return this;
    }

    Runs failedCall(String tool, String error) {
        events.add(new LoopEvent.ToolResultError("local", tool, error));
        return this;
    }

    Runs tokens(long input, long output) {
        tokens = new TokenUsage(input, output);
        return this;
    }

    Runs durationMs(long ms) {
        durationMs = ms;
        return this;
    }

    /** Ends the run through task_completion with this answer (its call reported as the last tool_result). */
    RunRecord answer(String answer) {
        events.add(new LoopEvent.ToolResultEvent("local", "task_completion",
                MAPPER.createObjectNode().put("result", answer), answer));
        events.add(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, answer));
        return new RunRecord(EvalCase.of("case", "task"), 1, answer, Optional.of(LoopEndReason.TASK_COMPLETION), events,
                iterations, Optional.ofNullable(tokens), durationMs, Optional.empty());
    }

    RunRecord ended(LoopEndReason reason, String why) {
        events.add(new LoopEvent.LoopEnd(reason, why));
        return new RunRecord(EvalCase.of("case", "task"), 1, "", Optional.of(reason), events, iterations,
                Optional.ofNullable(tokens), durationMs, Optional.of(reason.wireName() + ": " + why));
    }

    static ObjectNode json(String text) {
        try {
            return (ObjectNode) MAPPER.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }
}
