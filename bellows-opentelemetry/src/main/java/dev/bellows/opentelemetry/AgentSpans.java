package dev.bellows.opentelemetry;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.RunContext;
import dev.bellows.agent.RunInterceptor;
import dev.bellows.tool.LoopEndReason;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Instant;

/**
 * One {@code invoke_agent {agent}} span (kind INTERNAL) per run, current on the run's thread
 * for the whole run: the parent of the run's {@code chat} and {@code execute_tool} spans. A run
 * started inside a tool call of another run (a sub-agent) has its span under that call's
 * {@code execute_tool} span, to any depth; any other under the current span, if any. A run
 * that ends {@code error}, {@code max_iterations}, {@code circuit_breaker} or {@code cancelled}
 * has that end reason as its {@code error.type} and status ERROR; one that ends with the model's
 * answer, or {@code interrupted} (waiting for approval), has no error.
 */
final class AgentSpans implements RunInterceptor {

    private final Tracer tracer;
    private final Content content;
    private final boolean capture;

    AgentSpans(Tracer tracer, Content content, boolean capture) {
        this.tracer = tracer;
        this.content = content;
        this.capture = capture;
    }

    @Override
    public AgentResult intercept(Chain chain) {
        RunContext run = chain.run();
        SpanBuilder builder = builder(run);
        Context caller = run.parentCall().map(ToolSpans::callContext).orElse(null);
        if (caller != null) {
            builder.setParent(caller);
        }
        Span span = started(builder.startSpan(), run);
        Context context = Context.current().with(span);
        RunState.start(run, span, context);
        AgentResult result;
        try (Scope ignored = context.makeCurrent()) {
            result = chain.proceed();
        } catch (RuntimeException | Error e) {
            span.setAttribute(GenAi.ERROR_TYPE, e.getClass().getName());
            span.setStatus(StatusCode.ERROR, content.redact(String.valueOf(e.getMessage())));
            span.end();
            throw e;
        }
        ended(span, result);
        span.end();
        return result;
    }

    /**
     * The span of a run whose loop ran where no span could live for its whole length, recorded
     * once it has ended: with the ids {@code traceparent} names when the SDK's id generator is
     * {@link RunSpanIds}, else as a child of that span (in its trace).
     */
    void recordEnded(RunContext run, AgentResult result, String traceparent, Instant started, Instant ended) {
        Context named = RunState.remote(traceparent);
        SpanContext target = named == null ? SpanContext.getInvalid() : Span.fromContext(named).getSpanContext();
        Span span;
        if (target.isValid()) {
            SpanBuilder root = builder(run).setNoParent().setStartTimestamp(started);
            span = PresetIds.with(target.getTraceId(), target.getSpanId(), root::startSpan);
            if (!span.getSpanContext().getSpanId().equals(target.getSpanId())) {
                // The SDK chose its own ids (no RunSpanIds): that span is let go of unended, so
                // never exported, and the run's span is a child of the one its calls name.
                span = builder(run).setParent(named).setStartTimestamp(started).startSpan();
            }
        } else {
            span = builder(run).setNoParent().setStartTimestamp(started).startSpan();
        }
        ended(started(span, run), result);
        span.end(ended);
    }

    private SpanBuilder builder(RunContext run) {
        SpanBuilder builder = tracer.spanBuilder(GenAi.INVOKE_AGENT + " " + run.agentName())
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.INVOKE_AGENT)
                .setAttribute(GenAi.AGENT_NAME, run.agentName());
        run.sessionName().ifPresent(session -> builder.setAttribute(GenAi.CONVERSATION_ID, session));
        return builder;
    }

    private Span started(Span span, RunContext run) {
        if (capture && !run.task().isEmpty()) {
            span.setAttribute(GenAi.INPUT_MESSAGES, content.userMessage(run.task()));
        }
        return span;
    }

    /** What the run's end tells its span: the end reason, and the error when it failed. */
    private void ended(Span span, AgentResult result) {
        LoopEndReason reason = result.reason();
        span.setAttribute(GenAi.LOOP_END_REASON, reason.wireName());
        if (failed(reason)) {
            span.setAttribute(GenAi.ERROR_TYPE, reason.wireName());
            // An error's result says what failed (a provider's message, key-free); the others'
            // results are the loop's own words or the model's text, which is content.
            span.setStatus(StatusCode.ERROR, reason == LoopEndReason.ERROR || capture
                    ? content.redact(result.result()) : "");
        }
        if (capture && reason.successful()) {
            span.setAttribute(GenAi.OUTPUT_MESSAGES, content.outputMessage(java.util.List.of(), result.result(),
                    java.util.List.of(), "stop"));
        }
    }

    static boolean failed(LoopEndReason reason) {
        return switch (reason) {
            case ERROR, MAX_ITERATIONS, CIRCUIT_BREAKER, CANCELLED -> true;
            case TASK_COMPLETION, ASK_QUESTION, CONVERSE, INTERRUPTED -> false;
        };
    }
}
