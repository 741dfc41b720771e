package dev.bellows.agent;

import dev.bellows.provider.ProviderException;
import java.util.Objects;

/**
 * What happened, given to {@link AgentMachine#next}: the run starts, the model answered (or its
 * call failed), the calls of an answer ran, the driver goes on, the run was cancelled. Each
 * input answers the step the machine asked for last; {@link #cancelled()} and
 * {@link #failed(String)} answer any. Immutable values: a durable driver records them, and the
 * same inputs given again take the machine through the same states.
 *
 * <p>The answers to {@link MachineStep.CallModel} and {@link MachineStep.RunTools} are made by
 * the machine's own readers ({@link AgentMachine#reader}) and tool runs, not by hand.
 */
public sealed interface MachineInput permits MachineInput.Start, MachineInput.Proceed, MachineInput.Cancelled,
        MachineInput.ModelFailed, MachineInput.Failed, AgentMachine.Answered, AgentMachine.Resume, AgentMachine.ToolsRan {

    /** A new run of {@code task}. */
    static MachineInput start(String task) {
        return new Start(Objects.requireNonNull(task, "task"));
    }

    /** The driver goes on after a {@link MachineStep.Continue}, the step's effects applied. */
    static MachineInput proceed() {
        return Proceed.INSTANCE;
    }

    /** The run was cancelled: the machine ends it {@code cancelled}, keeping nothing of the step under way. */
    static MachineInput cancelled() {
        return Cancelled.INSTANCE;
    }

    /** The model call failed for good (retries spent, or not retryable): the run ends as an error, or cancelled. */
    static MachineInput modelFailed(ProviderException failure) {
        return new ModelFailed(Objects.requireNonNull(failure, "failure"));
    }

    /** Something around the step failed (an interceptor threw): the run ends as an {@code error} with {@code message}. */
    static MachineInput failed(String message) {
        return new Failed(Objects.requireNonNull(message, "message"));
    }

    /** A new run. */
    record Start(String task) implements MachineInput {
    }

    /** Go on. */
    enum Proceed implements MachineInput {
        INSTANCE
    }

    /** Cancelled. */
    enum Cancelled implements MachineInput {
        INSTANCE
    }

    /** The model call failed. */
    record ModelFailed(ProviderException failure) implements MachineInput {
    }

    /** A failure around a step. */
    record Failed(String message) implements MachineInput {
    }

}
