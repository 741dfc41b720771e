package dev.bellows.agent;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ProviderException;
import dev.bellows.tool.ToolEffect;

/** How the agents' loops end, shared so that both end the same way for the same cause. */
final class LoopEnds {

    private static final System.Logger LOG = System.getLogger(LoopEnds.class.getName());

    private LoopEnds() {
    }

    /**
     * Runs a loop body between {@code loop_start} and exactly one {@code loop_end}, whatever
     * happens: an exception ends the run as an error (and is logged with its stack trace). A
     * {@link VirtualMachineError} (OutOfMemoryError, StackOverflowError) is never a result: the
     * readers are woken by a {@code loop_end}, {@link RunHandle#await()} rethrows it, and so
     * does the run's thread. Nor is any other {@link Error}: it is rethrown on the run's thread
     * after the {@code loop_end}, unlogged. That is how a host stops a thread it runs the loop on
     * (Temporal destroys a durable run's workflow thread with an Error at every step it evicts
     * from its cache): logged as the loop's failure, it would fill a worker's log with stack traces.
     */
    static void runBetweenStartAndEnd(RunHandle run, String task, java.util.function.Supplier<LoopEvent.LoopEnd> body) {
        LoopEvent.LoopEnd end = null;
        VirtualMachineError crashed = null;
        Error stopped = null;
        try {
            run.emit(new LoopEvent.LoopStart(task));
            end = body.get();
        } catch (VirtualMachineError e) {
            crashed = e;
            run.crash(e);
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "internal error: " + describe(e));
        } catch (Error e) {
            stopped = e;
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "internal error: " + describe(e));
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, () -> "the agent loop failed; the run ends as an error", t);
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "internal error: " + describe(t));
        } finally {
            if (end == null) {
                end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the run ended without a result");
            }
            run.emit(end);
        }
        if (crashed != null) {
            throw crashed;
        }
        if (stopped != null) {
            throw stopped;
        }
    }

    /** The executor would not take the run: it ends before it began. */
    static void rejected(RunHandle run, String task, Exception e) {
        run.emit(new LoopEvent.LoopStart(task));
        run.emit(new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the agent's executor rejected the run: " + describe(e)));
    }

    /**
     * The one way the model ends a run, whichever protocol it speaks: a tool's
     * {@link ToolEffect.EndRun} ({@code task_completion} and friends, or a tool of the user's),
     * or a ReAct answer section, which the loop takes as {@code task_completion}'s.
     */
    static LoopEvent.LoopEnd ended(ToolEffect.EndRun end) {
        return new LoopEvent.LoopEnd(end.reason(), end.result());
    }

    static LoopEvent.LoopEnd failed(RunHandle run, ProviderException e) {
        if (e.kind() == ProviderException.Kind.CANCELLED || run.isCancelled()) {
            return cancelled();
        }
        return new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
    }

    static LoopEvent.LoopEnd cancelled() {
        return new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled");
    }

    static LoopEvent.LoopEnd circuitBreaker(int errors, String lastError) {
        return new LoopEvent.LoopEnd(LoopEndReason.CIRCUIT_BREAKER, "stopped after " + errors
                + " consecutive errors; the last: " + lastError);
    }

    static LoopEvent.LoopEnd maxIterations(int iteration) {
        return new LoopEvent.LoopEnd(LoopEndReason.MAX_ITERATIONS, "stopped after " + iteration
                + (iteration == 1 ? " iteration" : " iterations") + " without the task being finished");
    }

    static String describe(Throwable t) {
        String type = t.getClass().getSimpleName().isEmpty() ? t.getClass().getName() : t.getClass().getSimpleName();
        String message = t.getMessage();
        return message == null || message.isBlank() ? type : type + ": " + message;
    }
}
