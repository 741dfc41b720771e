package dev.bellows.opentelemetry;

import dev.bellows.agent.RunContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;

/**
 * What one run's telemetry keeps in {@link RunContext#attributes()}: its {@code invoke_agent}
 * span, the context the run's {@code chat} and {@code execute_tool} spans are children of
 * (tool calls may run on threads of their own, where that context is not current), and what
 * the model calls learn for the run's span and the retry counter.
 */
final class RunState {

    private static final String KEY = RunState.class.getName();

    final Span span;
    final Context context;
    /** Whether the run's span has its provider and model yet (set by its first model call). */
    volatile boolean modelNamed;
    /** The {@code error.type} of the last failed model call attempt: what a retry retries. */
    volatile String lastFailure;

    private RunState(Span span, Context context) {
        this.span = span;
        this.context = context;
    }

    static RunState start(RunContext run, Span span, Context context) {
        RunState state = new RunState(span, context);
        run.attributes().put(KEY, state);
        return state;
    }

    /** The run's state, or null when the run has no {@code invoke_agent} span of ours. */
    static RunState of(RunContext run) {
        return run.attributes().get(KEY) instanceof RunState state ? state : null;
    }
}
