package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import java.util.function.Consumer;

/**
 * The ids one answer's calls will run under, given to their {@code tool_call_end} events as
 * they are emitted, as {@link AgentMachine#callIds} gives them: the provider's (a native call's
 * {@code tool_call_start} says it), else {@code call_T_K}. One per answer (one reader).
 *
 * <p>A reader whose events all come from the stream processor asks {@link #named} in the
 * processor's own listener, so the events reach the run with no consumer in between: the
 * per-event path is a hot one, and every frame on it counts against the JIT's inlining depth.
 */
final class CallIds {

    private final int turn;
    private int calls;
    private String provided;

    CallIds(int turn) {
        this.turn = turn;
    }

    /** The ids of turn {@code turn}, or null where no ids are given (turn 0: a reader outside a run). */
    static CallIds of(int turn) {
        return turn > 0 ? new CallIds(turn) : null;
    }

    /** {@code emit} with the ids of turn {@code turn} given, or {@code emit} itself for turn 0. */
    static Consumer<AgentEvent> emitting(int turn, Consumer<AgentEvent> emit) {
        CallIds ids = of(turn);
        return ids == null ? emit : event -> emit.accept(ids.named(event));
    }

    /** {@code event}, or the {@code tool_call_end} it is with its call's id. */
    AgentEvent named(AgentEvent event) {
        if (event instanceof StreamEvent.ToolCallStart start) {
            provided = start.attributes().get("id");
        } else if (event instanceof StreamEvent.ToolCallEnd end) {
            calls++;
            String id = provided == null || provided.isBlank() ? "call_" + turn + "_" + calls : provided;
            provided = null;
            return end.withCallId(id);
        }
        return event;
    }
}
