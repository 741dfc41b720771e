package dev.bellows.agent;

import java.util.Optional;
import java.util.concurrent.ConcurrentMap;

/**
 * What an interceptor knows about the run it works in: the agent, the session, the task, the
 * iteration, whether the run was cancelled, and a place for state of its own that lives as
 * long as the run ({@link #attributes()}). The same object is given to every interceptor of
 * one run ({@link RunInterceptor}, {@link ModelInterceptor}, {@link ToolInterceptor}), so
 * what a run interceptor keeps there (a tracing span, say) the others find.
 *
 * <pre>{@code
 * RunInterceptor timing = chain -> {
 *     chain.run().attributes().put("started", System.nanoTime());
 *     return chain.proceed();
 * };
 * }</pre>
 *
 * <p>Thread-safe: a run's interceptors may be called on the run's thread and, for tool calls
 * that run in parallel, on threads of their own.
 */
public interface RunContext {

    /**
     * The {@linkplain #attributes() attribute} that names, as a W3C {@code traceparent}
     * string, the trace span a step of this run carried on in another process belongs under:
     * set by a driver that does a model or tool call away from the run's own process (a
     * durable run's worker), read by a tracer (bellows-opentelemetry) that has no span of the
     * run there.
     */
    String TRACE_PARENT = "traceparent";

    /**
     * The {@linkplain #attributes() attribute} that gives, for an attempt after the first of a
     * model call carried on in another process, the {@code error.type} of the attempt before it:
     * the HTTP status when the API answered with one ({@code 429}), else the failure's kind in
     * lower case ({@code timeout}, {@code stream_broken}, ...). In the run's own process a
     * tracer sees the attempts itself.
     */
    String LAST_FAILURE = "bellows.model.last_failure";

    /** The agent's name ({@link AgentBuilder#name}; {@code bellows} unless given). */
    String agentName();

    /** The stored session's name, when the run is in a stored session ({@link Session#name()}). */
    Optional<String> sessionName();

    /** The run's task: the user's message it was started with (a resumed run's original task). */
    String task();

    /** The iteration under way, from 1; 0 before the first model call. */
    int iteration();

    /** True once the run has been cancelled. */
    boolean isCancelled();

    /**
     * State that interceptors keep for this run, by keys of their own (use a key no other
     * interceptor would: a class name). Empty when the run starts; let go of with the run.
     */
    ConcurrentMap<String, Object> attributes();

    /**
     * The tool call of another run that this run works inside, when a tool of that run started
     * it (an agent offered as a tool, {@link AgentTool}, to any depth): that run's context and
     * the call's id, so that an interceptor can place this run under the call (a tracer puts its
     * span under the call's). Empty for a run started anywhere else.
     */
    default Optional<ParentCall> parentCall() {
        return Optional.empty();
    }

    /**
     * A tool call of a run, the one a nested run works inside ({@link #parentCall()}).
     *
     * @param run    the context of the run that made the call
     * @param callId the call's id in that run
     */
    record ParentCall(RunContext run, String callId) {
        public ParentCall {
            java.util.Objects.requireNonNull(run, "run");
            java.util.Objects.requireNonNull(callId, "callId");
        }
    }

    /**
     * The context of a run as a driver that does one of its steps away from the run's own
     * process knows it (a durable run's worker): what the run's own context would say, with
     * attributes of its own (empty: the driver puts what it carries over, such as
     * {@link #TRACE_PARENT}). Thread-safe.
     *
     * @param session   the stored session's name, or null for none
     * @param cancelled whether the run has been cancelled
     */
    static RunContext of(String agentName, String session, String task, int iteration,
                         java.util.function.BooleanSupplier cancelled) {
        return new DetachedRun(java.util.Objects.requireNonNull(agentName, "agentName"), Optional.ofNullable(session),
                java.util.Objects.requireNonNull(task, "task"), iteration,
                java.util.Objects.requireNonNull(cancelled, "cancelled"),
                new java.util.concurrent.ConcurrentHashMap<>());
    }
}
