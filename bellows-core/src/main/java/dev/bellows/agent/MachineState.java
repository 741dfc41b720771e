package dev.bellows.agent;

import dev.bellows.provider.Message;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Objects;

/**
 * Where one run of an {@link AgentMachine} stands: an immutable value, made only by the
 * machine. It carries everything the run's next step depends on besides the session's
 * conversation and plan: the task, the iteration, the consecutive errors (the circuit
 * breaker's count), the current turn, and what the machine waits for. A driver keeps the
 * latest one and gives it back with the next {@link MachineInput}; a {@link RunContext}
 * reads its task and iteration from it, on every driver alike.
 *
 * <p>Immutable and thread-safe.
 */
public final class MachineState {

    /** What the machine waits for. */
    public enum Phase {
        /** Nothing has happened: the machine waits for a start, a resume or a cancellation. */
        NEW,
        /** It waits for the model's answer ({@link MachineStep.CallModel}). */
        CALLING_MODEL,
        /** It waits for the outcomes of an answer's calls ({@link MachineStep.RunTools}). */
        RUNNING_TOOLS,
        /** It waits for the driver to go on ({@link MachineStep.Continue}). */
        CONTINUING,
        /** The run has ended ({@link MachineStep.End}): no input is taken any more. */
        ENDED
    }

    private static final MachineState NEW = new MachineState(Phase.NEW, "", false, 0, 0, "", 0, null, List.of(),
            false, List.of(), null, "", null, null, false, null);

    final Phase phase;
    final String task;
    /** A plain chat's single call, not the loop. */
    final boolean chat;
    final int iteration;
    final int errors;
    final String lastError;
    /** The number of turns memory held when the run's task came. */
    final int runStart;
    /** The run's task as its first turn holds it; null before the loop began. */
    final Message taskMessage;
    /** The current turn: the task, then observations and reminders. */
    final List<Message> pending;
    /** Whether memory holds {@link #pending} already (the task joins memory with its first answer). */
    final boolean pendingInMemory;
    /** For {@link Phase#RUNNING_TOOLS}: the turn so far, the answer last. */
    final List<Message> turn;
    /** For {@link Phase#RUNNING_TOOLS}: the answer whose calls run. */
    final Message answer;
    /** For {@link Phase#RUNNING_TOOLS}: what follows the observation, or empty. */
    final String note;
    /** The tools of the iteration under way (its answer is read and its calls run with them); null for a chat. */
    final ToolRegistry tools;
    /** For {@link Phase#RUNNING_TOOLS} of a resume: the waiting run it carries on; else null. */
    final Suspension resuming;
    /** A resume that gives the waiting run up: no call runs, nothing goes to the model. */
    final boolean givingUp;
    /** For {@link Phase#RUNNING_TOOLS} of a new answer: its calls as decoded; else null. */
    final List<DecodedToolCall> calls;

    MachineState(Phase phase, String task, boolean chat, int iteration, int errors, String lastError, int runStart,
                 Message taskMessage, List<Message> pending, boolean pendingInMemory, List<Message> turn,
                 Message answer, String note, ToolRegistry tools, Suspension resuming, boolean givingUp,
                 List<DecodedToolCall> calls) {
        this.phase = phase;
        this.task = Objects.requireNonNull(task, "task");
        this.chat = chat;
        this.iteration = iteration;
        this.errors = errors;
        this.lastError = lastError;
        this.runStart = runStart;
        this.taskMessage = taskMessage;
        this.pending = List.copyOf(pending);
        this.pendingInMemory = pendingInMemory;
        this.turn = List.copyOf(turn);
        this.answer = answer;
        this.note = note;
        this.tools = tools;
        this.resuming = resuming;
        this.givingUp = givingUp;
        this.calls = calls == null ? null : List.copyOf(calls);
    }

    /** The state of a run that has not begun: give it to the machine with a start or a resume. */
    public static MachineState initial() {
        return NEW;
    }

    /** What the machine waits for. */
    public Phase phase() {
        return phase;
    }

    /** The run's task: the user's message it was started with (a resumed run's original task); empty before. */
    public String task() {
        return task;
    }

    /** The iteration under way, from 1; 0 before the first model call. */
    public int iteration() {
        return iteration;
    }

    /** The errors counted in a row so far (undecodable calls, failed tools, answers without a call). */
    public int consecutiveErrors() {
        return errors;
    }

    /** A copy with {@code phase} and the rest as they are. */
    MachineState with(Phase next) {
        return new MachineState(next, task, chat, iteration, errors, lastError, runStart, taskMessage, pending,
                pendingInMemory, turn, answer, note, tools, resuming, givingUp, calls);
    }

    @Override
    public String toString() {
        return "MachineState[" + phase + ", iteration " + iteration + ", errors " + errors + "]";
    }
}
