package dev.bellows.opentelemetry;

import dev.bellows.agent.ToolInterceptor;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/**
 * One {@code execute_tool {tool}} span (kind INTERNAL) per tool call that runs, a child of the
 * run's {@code invoke_agent} span whichever thread the call runs on, and current while it runs
 * (so an HTTP MCP call made for it carries its trace context). While it runs, its context is kept
 * in the run's attributes under the call's id: a run a tool starts inside it (a sub-agent,
 * {@link dev.bellows.agent.RunContext#parentCall()}) has its {@code invoke_agent} span under
 * it, whichever thread that run goes on. A failed call has the
 * exception's class as {@code error.type} ({@code _OTHER} when there is none) and counts in
 * {@code bellows.tool.errors}.
 */
final class ToolSpans implements ToolInterceptor {

    private final Tracer tracer;
    private final Instruments instruments;
    private final Content content;
    private final boolean capture;

    /** The run attribute that holds a running call's context: this prefix and the call's id. */
    private static final String CALL_CONTEXT = ToolSpans.class.getName() + ".call:";

    ToolSpans(Tracer tracer, Instruments instruments, Content content, boolean capture) {
        this.tracer = tracer;
        this.instruments = instruments;
        this.content = content;
        this.capture = capture;
    }

    @Override
    public ToolCallOutcome intercept(Chain chain) {
        RunState run = RunState.of(chain.run());
        Context parent = run != null ? run.context : Context.current();
        ToolCall call = chain.call();
        Span span = tracer.spanBuilder(GenAi.EXECUTE_TOOL + " " + call.toolName())
                .setParent(parent)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.EXECUTE_TOOL)
                .setAttribute(GenAi.TOOL_NAME, call.toolName())
                .setAttribute(GenAi.TOOL_CALL_ID, chain.callId())
                .setAttribute(GenAi.TOOL_SERVER, call.serverName())
                .setAttribute(GenAi.TOOL_TYPE, "function")
                .setAttribute(GenAi.TOOL_DESCRIPTION, chain.tool().description())
                .startSpan();
        if (capture) {
            span.setAttribute(GenAi.TOOL_CALL_ARGUMENTS, content.json(call.arguments()));
        }
        ToolCallOutcome outcome;
        Context running = parent.with(span);
        java.util.Map<String, Object> attributes = chain.run().attributes();
        String key = CALL_CONTEXT + chain.callId();
        attributes.put(key, running);
        try (Scope ignored = running.makeCurrent()) {
            outcome = chain.proceed();
        } catch (RuntimeException | Error e) {
            failed(span, call, e.getClass().getName(), e.getMessage());
            span.end();
            throw e;
        } finally {
            attributes.remove(key, running);
        }
        switch (outcome) {
            case ToolCallOutcome.Succeeded succeeded -> {
                if (capture) {
                    span.setAttribute(GenAi.TOOL_CALL_RESULT, content.redact(succeeded.text()));
                }
            }
            case ToolCallOutcome.Failed failed ->
                    failed(span, call, failed.cause() != null ? failed.cause().getClass().getName() : GenAi.OTHER_ERROR,
                            failed.error());
            case ToolCallOutcome.Cancelled cancelled -> {
                span.setAttribute(GenAi.ERROR_TYPE, "cancelled");
                span.setStatus(StatusCode.ERROR);
            }
            case ToolCallOutcome.Denied denied -> {
                // a person's no is not the tool's error
            }
            case ToolCallOutcome.Deferred deferred -> {
                // it waits for a decision: no outcome yet
            }
        }
        span.end();
        return outcome;
    }

    /** The context of the call a nested run works inside, while that call runs; null when it has none of ours. */
    static Context callContext(dev.bellows.agent.RunContext.ParentCall call) {
        return call.run().attributes().get(CALL_CONTEXT + call.callId()) instanceof Context context ? context : null;
    }

    private void failed(Span span, ToolCall call, String errorType, String message) {
        span.setAttribute(GenAi.ERROR_TYPE, errorType);
        // What a tool says when it fails is what the model reads of it: content.
        span.setStatus(StatusCode.ERROR, capture && message != null ? content.redact(message) : "");
        instruments.toolErrors.add(1, Attributes.of(GenAi.TOOL_NAME, call.toolName(), GenAi.TOOL_SERVER,
                call.serverName(), GenAi.ERROR_TYPE, errorType));
    }
}
