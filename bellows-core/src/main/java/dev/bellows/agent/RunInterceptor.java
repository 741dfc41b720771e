package dev.bellows.agent;

/**
 * Around a whole run, between {@code loop_start} and {@code loop_end}, on the run's thread: a
 * tracing span that covers every model and tool call of the run, a per-run resource, a policy
 * that refuses a task. {@link Chain#proceed()} runs the loop (and the interceptors registered
 * after this one) and returns how the run ended.
 *
 * <pre>{@code
 * RunInterceptor span = chain -> {
 *     Span span = tracer.spanBuilder("invoke_agent " + chain.run().agentName()).startSpan();
 *     try (Scope scope = span.makeCurrent()) {          // current on the run's thread for the whole run
 *         chain.run().attributes().put("otel.span", span);
 *         AgentResult result = chain.proceed();
 *         span.setAttribute("bellows.loop.end_reason", result.reason().wireName());
 *         return result;
 *     } finally {
 *         span.end();
 *     }
 * };
 * DefaultAgent agent = DefaultAgent.builder()....runInterceptor(span).build();
 * }</pre>
 *
 * <p>Interceptors run in the order they were registered, the first outermost. One that returns
 * without calling {@code proceed} ends the run with the result it returns, and the loop never
 * runs. One that throws ends the run as an {@code error} whose result names the interceptor's
 * class; so does one that returns null. Implementations must be thread-safe: one agent runs
 * many runs at once.
 */
@FunctionalInterface
public interface RunInterceptor {

    /** Does its work around {@code chain.proceed()} and returns how the run ended. */
    AgentResult intercept(Chain chain);

    /** The rest of the run, as seen by one interceptor. */
    interface Chain {

        /** The run. */
        RunContext run();

        /**
         * Runs the rest: the interceptors registered after this one, then the loop.
         *
         * @throws IllegalStateException when called a second time
         */
        AgentResult proceed();
    }
}
