package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolResult;

/**
 * Around every tool call that runs: it sees the call (its id, server, tool and arguments) and
 * may run it ({@link Chain#proceed()}, or {@link Chain#proceed(JsonNode)} with changed
 * arguments), skip it with a result of its own ({@link Chain#respond}, or any
 * {@link ToolCallOutcome} it makes, such as a {@link ToolCallOutcome.Failed} the model reads),
 * or suspend it ({@link Chain#defer()}): the run then stops, {@code interrupted}, with the call
 * among its {@linkplain AgentResult#waiting() waiting calls}, and a resume answers it.
 *
 * <pre>{@code
 * ToolInterceptor audit = chain -> {
 *     ToolCallOutcome outcome = chain.proceed();
 *     log.info("{} {}/{} -> {}", chain.callId(), chain.call().serverName(), chain.call().toolName(),
 *             outcome.getClass().getSimpleName());
 *     return outcome;
 * };
 * DefaultAgent agent = DefaultAgent.builder()....toolInterceptor(audit).build();
 * }</pre>
 *
 * <h2>What reaches an interceptor</h2>
 * Only calls that can run: an undecodable call or an unknown tool goes back to the model as an
 * error without reaching any interceptor, and the arguments are checked against the tool's
 * schema (lossless coercions applied) before an interceptor sees them, so a call its schema
 * would refuse never reaches one. Arguments given to {@code proceed(arguments)} are checked
 * again: a mismatch is a {@link ToolCallOutcome.Failed} saying what is wrong, and the tool is
 * not called. Approvals and a run's external tools are interceptors too, built in and before
 * every one registered: a call that waits for a person's approval reaches the registered ones
 * only once approved, with the arguments the person approved, a denied one never, and neither
 * does a call of the run's external tools (docs/machine.md, "The seam").
 *
 * <h2>Order, threads, failures</h2>
 * Interceptors run in the order they were registered, the first outermost. The calls of one
 * answer run in order on the run's thread, or, when all their tools are
 * {@linkplain Tool#parallelSafe() parallel-safe}, at the same time on virtual threads of their
 * own, unless an interceptor {@linkplain #allowsParallelCalls() asks otherwise}. An exception
 * from {@code intercept} (what a tool does is never one: it is an outcome) ends the run as an
 * {@code error} whose result names the interceptor's class; so does returning null.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ToolInterceptor {

    /** Returns the call's outcome: {@code chain.proceed()}'s, or one of its own. */
    ToolCallOutcome intercept(Chain chain);

    /**
     * Runs one call of a run in a process other than the run's, as the agent's own runs run each
     * call: its tool found in {@code tools} and its arguments checked against the tool's schema,
     * lossless coercions applied (else the failure the model reads, which no interceptor sees),
     * then through {@code interceptors} (the first outermost), then the tool, its output written
     * as a {@link dev.bellows.tool.chain.ToolChain} with {@code output} writes it. The rules are
     * the agent's: arguments an interceptor passes on are checked again, and an interceptor's
     * exception, or a null outcome, becomes an unchecked exception whose message names the
     * interceptor's class (a run's {@code error}). No approval is asked: the driver decides them
     * before it sends the call, which it sends with the arguments approved. A deferred call comes
     * back as its {@link ToolCallOutcome.Deferred}: it is the driver's to carry out.
     *
     * <p>For a driver that sends a run's calls to processes of their own (docs/machine.md,
     * "Driving it"): a durable run's worker runs each call of its workflow this way, through
     * the worker's interceptors.
     *
     * @param run       the run, as its driver knows it ({@link RunContext#of})
     * @param callId    the call's id, as the interceptors see it
     * @param call      the call, as the model made it (or as approved)
     * @param tools     where the call finds its tool
     * @param output    how an output that is not a string is written for the model
     * @param cancelled true once the run is cancelled: the tool sees it, and a call not yet started does not start
     */
    static ToolCallOutcome proceed(java.util.List<? extends ToolInterceptor> interceptors, RunContext run,
                                   String callId, ToolCall call, dev.bellows.tool.ToolRegistry tools,
                                   dev.bellows.format.OutputFormat output, java.util.function.BooleanSupplier cancelled) {
        java.util.Objects.requireNonNull(run, "run");
        java.util.Objects.requireNonNull(callId, "callId");
        java.util.Objects.requireNonNull(cancelled, "cancelled");
        dev.bellows.tool.chain.internal.PreparedCall prepared = new dev.bellows.tool.chain.internal.Calls(tools, output,
                dev.bellows.memory.ResultLimit.NONE).prepare(call);
        if (prepared.failure().isPresent()) {
            return prepared.failure().get();
        }
        return ToolCallChain.run(java.util.List.copyOf(interceptors), run, callId, prepared, null, cancelled);
    }

    /**
     * A call made already, elsewhere, told to {@code interceptors} after the fact (a tracer
     * makes its span as for a call it saw run): the chain's end gives the recorded
     * {@code outcome} and runs nothing; {@link Chain#respond} and {@link Chain#defer()} throw
     * {@link UnsupportedOperationException}. Returns what the interceptors return.
     */
    static ToolCallOutcome replay(java.util.List<? extends ToolInterceptor> interceptors, RunContext run,
                                  String callId, Tool tool, ToolCall call, ToolCallOutcome outcome) {
        return ToolCallChain.recorded(java.util.List.copyOf(interceptors), java.util.Objects.requireNonNull(run, "run"),
                callId, tool, call, java.util.Objects.requireNonNull(outcome, "outcome"));
    }

    /**
     * Whether the calls of one answer may run at the same time, each on a virtual thread, when
     * their tools allow it (default true). Return false to have every call run one after
     * another on the run's own thread: a workflow engine that must not start threads, an
     * interceptor that keeps a thread-bound context.
     */
    default boolean allowsParallelCalls() {
        return true;
    }

    /** One tool call, as seen by one interceptor. */
    interface Chain {

        /** The run the call is made in. */
        RunContext run();

        /**
         * The call's id, unique within the session and the same in every process that sees
         * the call: the provider's id in native tool mode, else {@code call_T_K} for the
         * K-th call (from 1) of the answer kept as the session's T-th turn (from 1). Approvals
         * name calls by it ({@code approval_required}, {@code --approve-call}).
         */
        String callId();

        /** The call, with its arguments checked against the tool's schema; treat as read-only. */
        ToolCall call();

        /** The tool the call runs. */
        Tool tool();

        /** Runs the call on: through the interceptors registered after this one, then the tool. */
        ToolCallOutcome proceed();

        /**
         * Runs the call on with other arguments, checked against the tool's schema first (a
         * mismatch is a {@link ToolCallOutcome.Failed} and nothing runs). The call the next
         * interceptors see keeps a frozen copy; {@code arguments} itself is never changed.
         *
         * @throws IllegalArgumentException when {@code arguments} is not a JSON object
         */
        ToolCallOutcome proceed(JsonNode arguments);

        /**
         * The outcome of this call had the tool returned {@code result}, without running it:
         * the result rendered as the model reads it, its effect kept.
         */
        ToolCallOutcome.Succeeded respond(ToolResult<?> result);

        /**
         * Suspends the call: it does not run, the calls of the same answer after it do not run
         * either, and the run stops {@code interrupted} once the calls before it are done. A
         * resume gives its decision or result ({@link Decision}).
         */
        ToolCallOutcome.Deferred defer();
    }
}
