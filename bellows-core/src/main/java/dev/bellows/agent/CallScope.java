package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.util.function.Supplier;

/**
 * The tool call a thread is running, for a tool that runs an agent ({@link AgentTool}): the
 * call's id and the run it belongs to, so that the sub-agent's events reach that run's
 * listeners marked with the call's id. Set around a call by {@link ToolCallChain#run} on the
 * thread that runs it (a parallel call's own thread included); nothing else reads it.
 */
final class CallScope {

    /** The call under way on this thread, or null. */
    private static final ThreadLocal<CallScope> CURRENT = new ThreadLocal<>();

    final String callId;
    final RunContext run;

    private CallScope(String callId, RunContext run) {
        this.callId = callId;
        this.run = run;
    }

    /** The call this thread runs, or null outside a tool call. */
    static CallScope current() {
        return CURRENT.get();
    }

    /** Runs {@code body} as the call {@code callId} of {@code run}, then puts back what was there. */
    static <T> T within(String callId, RunContext run, Supplier<T> body) {
        CallScope outer = CURRENT.get();
        CURRENT.set(new CallScope(callId, run));
        try {
            return body.get();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }

    /**
     * Tells the run's listeners of {@code event} (a sub-agent's), when the run is one of this
     * process's; a step done in another process (a durable run's worker) has no listeners here.
     */
    void emit(AgentEvent event) {
        if (run instanceof Loop loop) {
            loop.emitFromTool(event);
        }
    }
}
