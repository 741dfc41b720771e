package dev.bellows.agent;

import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Objects;

/**
 * What the machine asks its driver to do next, after the transition's effects are applied:
 * call the model, run an answer's calls, go on, or end the run. Immutable values.
 */
public sealed interface MachineStep permits MachineStep.CallModel, MachineStep.RunTools, MachineStep.Continue,
        MachineStep.HandOff, MachineStep.End {

    /**
     * Send {@code request} to the model (through the agent's retries and model interceptors)
     * and read the answer with {@link AgentMachine#reader}; its {@code finish()} is the next
     * input. A failure for good is {@link MachineInput#modelFailed}.
     *
     * @param request the request, history and current turn, within the memory's limits
     * @param tools   the tools offered (the answer is read against them); null for a plain chat
     * @param turn    the turn the answer will be kept as, which names its calls ({@code call_T_K});
     *                0 when not known
     */
    record CallModel(ChatRequest request, ToolRegistry tools, int turn) implements MachineStep {
        public CallModel {
            Objects.requireNonNull(request, "request");
        }

        /** A step whose answer's calls are named when it is read, not while it streams. */
        public CallModel(ChatRequest request, ToolRegistry tools) {
            this(request, tools, 0);
        }
    }

    /**
     * Run the calls of an answer (or, resuming, the calls of the waiting answer from where they
     * stopped), through approvals and the tool interceptors; their outcomes are the next input.
     * Made by the machine; {@link AgentMachine#runTools} does it.
     */
    final class RunTools implements MachineStep {
        final List<Suspension.Entry> entries;
        /** For a resume: every waiting call's decision, and the log of what resuming did; else null. */
        final java.util.Map<String, Decision> decisions;
        final ResumeLog log;
        final ToolRegistry tools;
        /** A resume that gives the waiting run up: no call runs. */
        final boolean givingUp;
        /** The calls' ids, in call order: made once, read by every driver's step and its outcomes. */
        private final List<String> ids;

        RunTools(List<Suspension.Entry> entries, java.util.Map<String, Decision> decisions, ResumeLog log,
                 ToolRegistry tools, boolean givingUp) {
            this.entries = List.copyOf(entries);
            String[] made = new String[this.entries.size()];
            for (int i = 0; i < made.length; i++) {
                made[i] = this.entries.get(i).id();
            }
            this.ids = List.of(made);
            this.decisions = decisions;
            this.log = log;
            this.tools = tools;
            this.givingUp = givingUp;
        }

        /** The ids of the calls, in call order. */
        public List<String> callIds() {
            return ids;
        }

        /** Whether this carries on a waiting answer's calls (a resume), rather than a new answer's. */
        public boolean resuming() {
            return log != null;
        }

        @Override
        public String toString() {
            return "RunTools" + callIds();
        }
    }

    /** Apply the effects, then give {@link MachineInput#proceed()} (or {@link MachineInput#cancelled()}). */
    record Continue() implements MachineStep {
    }

    /**
     * This agent's part of the run ended with a handoff ({@link Handoff}): the effects before it
     * kept the turn, emitted {@code handoff} and gave the session's conversation to the other
     * agent. The driver carries the run on with {@code handoff}'s agent, in the same session, on
     * {@code task}; that agent's end is the run's (its {@code loop_end}, the driver's to emit).
     * This machine takes no more input.
     *
     * @param handoff the agent that takes over
     * @param task    its task: what the model wrote for it, or the run's task when it wrote nothing
     */
    record HandOff(Handoff handoff, String task) implements MachineStep {
        public HandOff {
            Objects.requireNonNull(handoff, "handoff");
            Objects.requireNonNull(task, "task");
        }
    }

    /**
     * The run ended: {@code end} is its {@code loop_end}, for the driver to emit last.
     *
     * @param waiting for a run that stops {@code interrupted}, the calls that wait; else empty
     */
    record End(LoopEvent.LoopEnd end, List<WaitingCall> waiting) implements MachineStep {
        public End {
            Objects.requireNonNull(end, "end");
            waiting = List.copyOf(waiting);
        }
    }
}
