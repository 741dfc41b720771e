package dev.bellows.opentelemetry;

import dev.bellows.agent.RunContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

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

    /**
     * The run's state: its {@code invoke_agent} span's when the run has one of ours in this
     * process, else, for a run carried on elsewhere (a durable run's call on a worker), the
     * context its {@link BellowsTelemetry#TRACE_PARENT} attribute names, with the failure its
     * {@link BellowsTelemetry#LAST_FAILURE} attribute gives; null when it has neither.
     */
    static RunState of(RunContext run) {
        java.util.Map<String, Object> attributes = run.attributes();
        if (attributes.get(KEY) instanceof RunState state) {
            return state;
        }
        if (!(attributes.get(BellowsTelemetry.TRACE_PARENT) instanceof String traceparent)) {
            return null;
        }
        Context context = remote(traceparent);
        if (context == null) {
            return null;
        }
        // The run's span is not here: what a model call would tell it (its provider and model) is
        // told to a span that records nothing; the calls' own spans are children of its context.
        RunState state = new RunState(Span.fromContext(context), context);
        state.modelNamed = true;
        if (attributes.get(BellowsTelemetry.LAST_FAILURE) instanceof String failure) {
            state.lastFailure = failure;
        }
        return state;
    }

    /** The context whose remote span {@code traceparent} names, or null when it names none. */
    static Context remote(String traceparent) {
        if (traceparent == null) {
            return null;
        }
        Context context = W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, TRACEPARENT);
        return Span.fromContext(context).getSpanContext().isValid() ? context : null;
    }

    /** Reads a carrier that is the {@code traceparent} value itself. */
    private static final TextMapGetter<String> TRACEPARENT = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of("traceparent");
        }

        @Override
        public String get(String carrier, String key) {
            return "traceparent".equals(key) ? carrier : null;
        }
    };
}
