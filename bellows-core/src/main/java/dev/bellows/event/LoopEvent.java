package dev.bellows.event;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.tool.LoopEndReason;
import tools.jackson.databind.JsonNode;
import dev.bellows.plan.PlanStep;
import java.util.List;
import java.util.Objects;

/**
 * What the agent loop reports around the stream events of each model answer. A run's events
 * are always {@link LoopStart} first and {@link LoopEnd} last, each exactly once; in between,
 * each iteration is {@link IterationStart}, the stream events of the answer, then what the
 * loop did with it ({@link ToolResultEvent}, {@link ToolResultError}, {@link PlanUpdate},
 * {@link NoToolCall}). A {@link Retry} may come at any point of an answer's stream. A run that
 * stops at calls waiting for a person's approval says so with one {@link ApprovalRequired} per
 * call before its {@code loop_end} ({@code interrupted}); the run that resumes it reports each
 * decision as an {@link Approval} before the calls run.
 */
public sealed interface LoopEvent extends AgentEvent {

    /** The run started on this task (the user's message). */
    record LoopStart(String task) implements LoopEvent {
        public LoopStart {
            Objects.requireNonNull(task, "task");
        }

        @Override
        public String type() {
            return "loop_start";
        }
    }

    /** A new iteration, counted from 1: the conversation is about to be sent to the model. */
    record IterationStart(int iteration) implements LoopEvent {
        public IterationStart {
            if (iteration < 1) {
                throw new IllegalArgumentException("iterations count from 1, got " + iteration);
            }
        }

        @Override
        public String type() {
            return "iteration_start";
        }
    }

    /**
     * A tool call ran and returned.
     *
     * @param arguments the call's arguments, frozen (read-only; {@link JsonNode#deepCopy()} to edit)
     * @param result    the text sent back to the model for this call (for a loop-breaking
     *                  tool, which sends nothing back, the text that ends the loop)
     * @param callId    the call's id ({@code call_1_1}, or the provider's), as a sub-agent's
     *                  {@code parent_call_id} names it; null when not known
     */
    record ToolResultEvent(String serverName, String toolName, JsonNode arguments, String result, String callId)
            implements LoopEvent {
        public ToolResultEvent {
            Objects.requireNonNull(serverName, "serverName");
            Objects.requireNonNull(toolName, "toolName");
            arguments = FrozenJson.freeze(Objects.requireNonNull(arguments, "arguments"));
            Objects.requireNonNull(result, "result");
        }

        /** An event without the call's id. */
        public ToolResultEvent(String serverName, String toolName, JsonNode arguments, String result) {
            this(serverName, toolName, arguments, result, null);
        }

        @Override
        public String type() {
            return "tool_result";
        }
    }

    /**
     * A tool call failed: undecodable, unknown tool, arguments not matching the schema, or the
     * tool threw. The error is what the model reads.
     *
     * @param serverName the call's server, or null when the call could not be decoded
     * @param toolName   the call's tool name, or null when the call could not be decoded
     * @param callId     the call's id; null when the call could not be decoded (it has none) or not known
     */
    record ToolResultError(String serverName, String toolName, String error, String callId) implements LoopEvent {
        public ToolResultError {
            Objects.requireNonNull(error, "error");
        }

        /** An event without the call's id. */
        public ToolResultError(String serverName, String toolName, String error) {
            this(serverName, toolName, error, null);
        }

        @Override
        public String type() {
            return "tool_result_error";
        }
    }

    /** The answer of this iteration called no tool: the model is reminded to, and it counts as an error. */
    record NoToolCall(int iteration) implements LoopEvent {
        @Override
        public String type() {
            return "no_tool_call";
        }
    }

    /** The plan was replaced; the model sees it on every later iteration. */
    record PlanUpdate(List<PlanStep> steps) implements LoopEvent {
        public PlanUpdate {
            steps = List.copyOf(Objects.requireNonNull(steps, "steps"));
        }

        @Override
        public String type() {
            return "plan_update";
        }
    }

    /**
     * The model call failed and is tried again after {@code delayMs}. The stream events the
     * failed attempt produced (if any) are void: discard what was shown of them; the new
     * attempt's events start the answer afresh, and nothing of the failed attempt reaches the
     * conversation.
     *
     * @param attempt the attempt about to start (2 for the first retry)
     * @param reason  why the previous attempt failed
     */
    record Retry(int attempt, String reason, long delayMs) implements LoopEvent {
        public Retry {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String type() {
            return "retry";
        }
    }

    /**
     * A tool call needs a person's approval, and the run stops to wait for it (it ends
     * {@code interrupted} after these events).
     *
     * @param id        the call's id, which a decision names
     * @param arguments the call's arguments (checked against the tool's schema), frozen (read-only;
     *                  {@link JsonNode#deepCopy()} to edit)
     */
    record ApprovalRequired(String id, String serverName, String toolName, JsonNode arguments) implements LoopEvent {
        public ApprovalRequired {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(serverName, "serverName");
            Objects.requireNonNull(toolName, "toolName");
            arguments = FrozenJson.freeze(Objects.requireNonNull(arguments, "arguments"));
        }

        @Override
        public String type() {
            return "approval_required";
        }
    }

    /**
     * A person decided on a call that waited for approval; it comes before the call runs (or,
     * denied, before the model reads that it did not).
     *
     * @param id       the call's id
     * @param approved whether it runs ({@code decision} {@code approved}) or not ({@code denied})
     * @param reason   the reason given for a denial; empty when none (and for an approval)
     */
    record Approval(String id, boolean approved, String reason) implements LoopEvent {
        public Approval {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String type() {
            return "approval";
        }
    }

    /**
     * The run ended; always the last event.
     *
     * @param result the answer, question or reply for the loop-breaking reasons; otherwise a
     *               sentence saying why the loop stopped (the error message for {@code error})
     */
    record LoopEnd(LoopEndReason reason, String result) implements LoopEvent {
        public LoopEnd {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(result, "result");
        }

        @Override
        public String type() {
            return "loop_end";
        }
    }

    /**
     * The agent in control handed the conversation to another ({@code transfer_to_NAME},
     * {@link dev.bellows.agent.Handoff}): the events after this one, up to {@code loop_end},
     * are the new agent's, and its answer is the run's result.
     *
     * @param from the agent that had the conversation
     * @param to   the agent that has it now
     */
    record Handoff(String from, String to) implements LoopEvent {
        public Handoff {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
        }

        @Override
        public String type() {
            return "handoff";
        }
    }

    /**
     * An event of a sub-agent, an agent that runs inside a tool call of this run
     * ({@link dev.bellows.agent.AgentTool}), passed on to this run's listeners as it happens.
     * A sub-agent's own sub-agents nest: {@code event} is then itself a {@code SubAgentEvent}.
     * Its wire form is the innermost event's, with {@code "agent"} (the agent whose loop emitted
     * it) and {@code "parent_call_id"} (the id of the tool call that runs that agent).
     *
     * @param agent        the sub-agent's name
     * @param parentCallId the id of this run's tool call that runs the sub-agent
     * @param event        what the sub-agent reported
     */
    record SubAgentEvent(String agent, String parentCallId, AgentEvent event) implements LoopEvent {
        public SubAgentEvent {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(parentCallId, "parentCallId");
            Objects.requireNonNull(event, "event");
        }

        /** The event as its own agent's loop emitted it, under every level of nesting. */
        public AgentEvent innermost() {
            AgentEvent inner = event;
            while (inner instanceof SubAgentEvent nested) {
                inner = nested.event();
            }
            return inner;
        }

        /** The innermost level: the agent that emitted {@link #innermost()} and its parent's call. */
        public SubAgentEvent deepest() {
            SubAgentEvent level = this;
            while (level.event() instanceof SubAgentEvent nested) {
                level = nested;
            }
            return level;
        }

        /** How deep it comes from: 1 for a sub-agent of this run, 2 for a sub-agent of that one, .... */
        public int depth() {
            int depth = 1;
            for (AgentEvent inner = event; inner instanceof SubAgentEvent nested; inner = nested.event()) {
                depth++;
            }
            return depth;
        }

        @Override
        public String type() {
            return innermost().type();
        }
    }
}
