package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.util.List;
import java.util.function.Consumer;
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
    /** Where a sub-agent's events go: the run's listeners; null for a step done for another process. */
    private final Consumer<AgentEvent> sink;
    /** The run's shared state, or null for a step done for another process. */
    private final SharedState state;
    /** The tree budgets of a workflow run as an agent; else the run's own. */
    private final List<Budget> tree;

    private CallScope(String callId, RunContext run) {
        this.callId = callId;
        this.run = run;
        this.sink = run instanceof Loop loop ? loop::emitFromTool : null;
        this.state = null;      // the run's session's, made when first asked for
        this.tree = null;
    }

    /** A scope of a workflow run as an agent of its own ({@link AgentTool#asAgent()}): no model run around it. */
    CallScope(String callId, RunContext run, Consumer<AgentEvent> sink, SharedState state, List<Budget> tree) {
        this.callId = callId;
        this.run = run;
        this.sink = sink;
        this.state = state;
        this.tree = tree;
    }

    /** The tree budgets a sub-agent run in this call counts in. */
    List<Budget> tree() {
        if (tree != null) {
            return tree;
        }
        return run instanceof Loop loop ? loop.tree() : List.of();
    }

    /** The executor the run was given (for its sub-agents' work side by side), or null for virtual threads. */
    java.util.concurrent.Executor executor() {
        return run instanceof Loop loop ? loop.executor() : null;
    }

    /** The run's shared state; null for a step done for another process. */
    SharedState state() {
        if (state != null) {
            return state;
        }
        return run instanceof Loop loop ? loop.session().state() : null;
    }

    /** Runs {@code body} with this scope as this thread's, then puts back what was there. */
    <T> T enter(Supplier<T> body) {
        CallScope outer = CURRENT.get();
        CURRENT.set(this);
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

    /** The call this thread runs, or null outside a tool call. */
    static CallScope current() {
        return CURRENT.get();
    }

    /** Runs {@code body} as the call {@code callId} of {@code run}, then puts back what was there. */
    static <T> T within(String callId, RunContext run, Supplier<T> body) {
        return new CallScope(callId, run).enter(body);
    }

    /**
     * Tells the run's listeners of {@code event} (a sub-agent's), when the run is one of this
     * process's; a step done in another process (a durable run's worker) has no listeners here.
     */
    void emit(AgentEvent event) {
        if (sink != null) {
            sink.accept(event);
        }
    }
}
