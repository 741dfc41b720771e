package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.chain.internal.PreparedCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * One tool call through the {@link ToolInterceptor}s, OkHttp-style: each chain holds the
 * position of the next interceptor; the last runs the tool.
 */
final class ToolCallChain implements ToolInterceptor.Chain {

    private final List<ToolInterceptor> interceptors;
    private final int index;
    private final RunContext run;
    private final String callId;
    private final PreparedCall prepared;
    private final ToolCall call;                // the call with the arguments this chain runs it with
    private final BooleanSupplier cancelled;
    /** The tool: the prepared call's, or a recorded call's. */
    private final Tool tool;
    /** For a call made already (see {@link #recorded}), its outcome, which the chain's end gives; else null. */
    private final ToolCallOutcome recorded;
    /** For a suspended call carried on (see {@link #resume}), what its tool resumes with; else null. */
    private final Resumption resumption;

    ToolCallChain(List<ToolInterceptor> interceptors, int index, RunContext run, String callId, PreparedCall prepared,
                  ToolCall call, BooleanSupplier cancelled) {
        this(interceptors, index, run, callId, prepared, call, cancelled, prepared.tool(), null, null);
    }

    private ToolCallChain(List<ToolInterceptor> interceptors, int index, RunContext run, String callId,
                          PreparedCall prepared, ToolCall call, BooleanSupplier cancelled, Tool tool,
                          ToolCallOutcome recorded, Resumption resumption) {
        this.resumption = resumption;
        this.interceptors = interceptors;
        this.index = index;
        this.run = run;
        this.callId = callId;
        this.prepared = prepared;
        this.call = call;
        this.cancelled = cancelled;
        this.tool = tool;
        this.recorded = recorded;
    }

    /**
     * A call made already, elsewhere, told to the interceptors after the fact: the chain's end
     * gives its recorded {@code outcome} (whatever arguments an interceptor passes on), and it
     * cannot be answered or deferred any more.
     */
    static ToolCallOutcome recorded(List<ToolInterceptor> interceptors, RunContext run, String callId, Tool tool,
                                    ToolCall call, ToolCallOutcome outcome) {
        return new ToolCallChain(interceptors, 0, run, callId, null, call, () -> false, tool, outcome, null).proceed();
    }

    /**
     * Runs a prepared call through every interceptor, with its own arguments or, when given,
     * {@code arguments} (a person's edit): checked against the schema first, so that the
     * interceptors see them checked, and a mismatch is a failure the model reads.
     */
    static ToolCallOutcome run(List<ToolInterceptor> interceptors, RunContext run, String callId, PreparedCall prepared,
                               JsonNode arguments, BooleanSupplier cancelled) {
        ToolCall call = prepared.call();
        // proceed checks arguments other than the call's before the first interceptor sees them
        return CallScope.within(callId, run, () -> new ToolCallChain(interceptors, 0, run, callId, prepared, call,
                cancelled).proceed(arguments != null ? arguments : call.arguments()));
    }

    /**
     * Carries on a suspended call of a {@link ResumableTool} through every interceptor, as the
     * call itself went: the chain's end resumes the tool instead of calling it. An interceptor
     * sees the call again, with its arguments; what it does sees no difference.
     */
    static ToolCallOutcome resume(List<ToolInterceptor> interceptors, RunContext run, String callId,
                                  PreparedCall prepared, Resumption resumption, BooleanSupplier cancelled) {
        ToolCall call = prepared.call();
        return CallScope.within(callId, run, () -> new ToolCallChain(interceptors, 0, run, callId, prepared, call,
                cancelled, prepared.tool(), null, resumption).proceed(call.arguments()));
    }

    /** The chain's end for a resumed call: whatever the tool does is an outcome, as a call's is. */
    private ToolCallOutcome resumeTool(ToolCall call) {
        if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
            return new ToolCallOutcome.Cancelled(call);
        }
        if (!(tool instanceof ResumableTool resumable)) {
            return new ToolCallOutcome.Failed(call, "tool " + call.toolName() + " cannot carry on a waiting call", null);
        }
        try {
            ToolResult<?> result = resumable.resume(new ToolContext(call.serverName(), call.toolName(), cancelled),
                    call.arguments(), resumption);
            return prepared.respond(call.arguments(), result == null ? ToolResult.of(null) : result);
        } catch (ToolException e) {
            String message = e.getMessage();
            return new ToolCallOutcome.Failed(call, message == null || message.isBlank()
                    ? "tool " + call.toolName() + " failed" : message, e);
        } catch (RuntimeException e) {
            return new ToolCallOutcome.Failed(call, "tool " + call.toolName() + " failed: "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
        }
    }

    @Override
    public RunContext run() {
        return run;
    }

    @Override
    public String callId() {
        return callId;
    }

    @Override
    public ToolCall call() {
        return call;
    }

    @Override
    public Tool tool() {
        return tool;
    }

    @Override
    public ToolCallOutcome proceed() {
        return proceed(call.arguments());
    }

    @Override
    public ToolCallOutcome proceed(JsonNode arguments) {
        Objects.requireNonNull(arguments, "arguments");
        if (!arguments.isObject()) {
            throw new IllegalArgumentException("arguments must be a JSON object, not " + arguments.getNodeType());
        }
        if (recorded != null) {
            return index == interceptors.size() ? recorded : next(call);    // made already, with its own arguments
        }
        ToolCall next = call;
        if (arguments != call.arguments()) {
            try {
                next = new ToolCall(call.serverName(), call.toolName(), prepared.check(arguments));
            } catch (InvalidArgumentsException e) {
                return new ToolCallOutcome.Failed(new ToolCall(call.serverName(), call.toolName(), arguments),
                        e.getMessage(), e);
            }
        }
        if (index == interceptors.size() && resumption != null) {
            return resumeTool(next);
        }
        if (index == interceptors.size()) {
            return next.arguments() == prepared.call().arguments() ? prepared.run(cancelled)
                    : prepared.run(next.arguments(), cancelled);
        }
        return next(next);
    }

    /** The next interceptor, with {@code next} as the call it sees. */
    private ToolCallOutcome next(ToolCall next) {
        ToolInterceptor interceptor = interceptors.get(index);
        ToolCallChain chain = new ToolCallChain(interceptors, index + 1, run, callId, prepared, next, cancelled, tool,
                recorded, resumption);
        ToolCallOutcome outcome;
        try {
            outcome = interceptor.intercept(chain);
        } catch (RuntimeException e) {
            throw InterceptorFailure.of("tool interceptor", interceptor, e);
        }
        if (outcome == null) {
            throw InterceptorFailure.returnedNull("tool interceptor", interceptor);
        }
        return outcome;
    }

    @Override
    public ToolCallOutcome.Succeeded respond(ToolResult<?> result) {
        madeAlready();
        return prepared.respond(call.arguments(), result);
    }

    @Override
    public ToolCallOutcome.Deferred defer() {
        madeAlready();
        return new ToolCallOutcome.Deferred(call);
    }

    private void madeAlready() {
        if (recorded != null) {
            throw new UnsupportedOperationException("the call " + callId + " (" + call.toolName()
                    + ") was made already: it can be watched, not answered or deferred");
        }
    }
}
