package dev.bellows.tool;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.plan.Plan;
import dev.bellows.tool.chain.ToolChain;
import java.util.List;
import java.util.Objects;

/**
 * What a tool's result does to the agent loop, as data: nothing ({@link #NONE}), end the run
 * with an answer ({@link EndRun}), or replace the plan ({@link ReplacePlan}). The loop acts on
 * the effect alone; it never asks a result's output what type it is.
 *
 * <pre>{@code
 * // a tool of your own that ends the run with its answer
 * TypedTool.of("hand_over", "Hands the task to a person and ends the turn.", HandOver.class,
 *         (context, args) -> ToolResult.endingRun(LoopEndReason.TASK_COMPLETION, "Handed over to " + args.who()));
 * }</pre>
 *
 * A tool that declares itself {@linkplain Tool#loopBreaking() loop-breaking} and returns a
 * result without an effect ends the run all the same, with its result's text as the answer
 * (the {@link ToolChain} gives it that {@link EndRun}).
 */
public sealed interface ToolEffect permits ToolEffect.None, ToolEffect.EndRun, ToolEffect.ReplacePlan,
        ToolEffect.HandOff {

    /** No effect: the loop goes on. */
    ToolEffect NONE = new None();

    /** No effect: the loop goes on. Use {@link #NONE}. */
    record None() implements ToolEffect {
    }

    /**
     * The run ends, {@code loop_end} with this reason and result. When several calls of one
     * answer end the run, the first in call order wins.
     *
     * @param reason      a reason the model ends its turn with: {@code task_completion},
     *                    {@code ask_question} or {@code converse} ({@link LoopEndReason#successful()})
     * @param result      the answer, question or reply: the run's result
     * @param suggestions answers the user may pick from (for {@code ask_question}); usually empty
     */
    record EndRun(LoopEndReason reason, String result, List<String> suggestions) implements ToolEffect {

        public EndRun {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(result, "result");
            suggestions = List.copyOf(Objects.requireNonNull(suggestions, "suggestions"));
            if (!reason.successful()) {
                throw new IllegalArgumentException("a tool ends a run with task_completion, ask_question or converse,"
                        + " not " + reason.wireName());
            }
        }

        /** An end without suggestions. */
        public EndRun(LoopEndReason reason, String result) {
            this(reason, result, List.of());
        }
    }

    /**
     * The plan is replaced ({@code plan_update}); the model sees the new one on every later
     * iteration.
     *
     * @param plan the new plan
     */
    record ReplacePlan(Plan plan) implements ToolEffect {

        public ReplacePlan {
            Objects.requireNonNull(plan, "plan");
        }
    }

    /**
     * The conversation goes to another agent for the rest of the run: the agent's
     * {@code transfer_to_NAME} tools give it (see {@code dev.bellows.agent.Handoff}). This
     * agent's loop ends there and the one named carries the run on; a call that ends the run
     * ({@link EndRun}) in the same answer wins over it.
     *
     * @param agent   the name of the handoff that takes over (the {@code NAME} of its tool)
     * @param message what the model wrote for the next agent; empty when it wrote nothing
     */
    record HandOff(String agent, String message) implements ToolEffect {

        public HandOff {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(message, "message");
        }
    }
}
