package dev.bellows.agent;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;

/**
 * Around every model request, in the style of OkHttp's {@code Interceptor}: it sees the
 * request, may change it ({@code chain.proceed(request.toBuilder()...build())}), may wrap the
 * returned {@link ChatStream} to observe its chunks, finish reason and usage, or may answer
 * without calling {@code proceed} at all (a cache, a recorded answer, a call carried out
 * elsewhere), returning a stream of its own.
 *
 * <pre>{@code
 * ModelInterceptor traceparent = chain -> chain.proceed(chain.request().toBuilder()
 *         .header("traceparent", currentTraceparent())    // sent by both providers, never logged
 *         .build());
 * DefaultAgent agent = DefaultAgent.builder()....modelInterceptor(traceparent).build();
 * }</pre>
 *
 * <h2>Retries</h2>
 * Each <em>attempt</em> goes through the interceptors: a request the retry policy sends again
 * passes through them again ({@link Chain#attempt()} counts), so a span per attempt or a
 * header per attempt come naturally. The retries (and the iteration cap, and the circuit
 * breaker) work around the interceptors as they work without them: a
 * {@link ProviderException} an interceptor throws (or its stream throws) is retried when it
 * is {@linkplain ProviderException#retryable() retryable}, as the provider's own would be.
 * One registered with {@code modelCallInterceptor} instead sits outside the retries: once per
 * model call, as OkHttp's application interceptors sit outside its network interceptors (a
 * cache of whole answers, a budget per call); it sees a {@code Restart} frame in the stream for
 * each retry, and its {@code ProviderException} is not retried.
 *
 * <h2>Failures</h2>
 * Interceptors run in the order they were registered, the first outermost. Any other
 * exception from {@code intercept}, or from the stream it returns, ends the run as an
 * {@code error} whose result names the interceptor's class; so does returning null. The run's
 * cancellation reaches the stream returned through {@link ChatStream#cancel()}: a stream of
 * your own must end its {@code next()} with a {@link ProviderException} of kind
 * {@code CANCELLED} then. Implementations must be thread-safe: one agent runs many runs at once.
 */
@FunctionalInterface
public interface ModelInterceptor {

    /** Returns the answer's stream: {@code chain.proceed(...)}'s, wrapped, or one of its own. */
    ChatStream intercept(Chain chain) throws ProviderException;

    /**
     * One attempt of {@code request} through {@code interceptors} (the first outermost), then
     * to {@code provider}, with the failure rules of the agent's own runs: an interceptor's
     * unchecked exception, or one from a stream it made, or a null stream, becomes an
     * unchecked exception whose message names the interceptor's class (a run's {@code error}); a {@link ProviderException}
     * passes as it is. For a driver that makes a model call of a run away from the run's
     * process (a durable run's worker): the same chain the agent's runs use.
     *
     * @param run     the run, as its driver knows it ({@link RunContext#of})
     * @param attempt which attempt this is: 1, then 2 for the first retry, ...
     */
    static ChatStream proceed(java.util.List<? extends ModelInterceptor> interceptors, RunContext run,
                              ChatRequest request, int attempt, dev.bellows.provider.Provider provider)
            throws ProviderException {
        java.util.Objects.requireNonNull(request, "request");
        return new ModelChain(java.util.List.copyOf(interceptors), 0, java.util.Objects.requireNonNull(run, "run"),
                request, attempt, java.util.Objects.requireNonNull(provider, "provider"), null).proceed(request);
    }

    /** One attempt of one model request, as seen by one interceptor. */
    interface Chain {

        /** The run the request is made for; {@link RunContext#iteration()} is the request's iteration. */
        RunContext run();

        /** The request as the interceptors before this one left it. */
        ChatRequest request();

        /**
         * Which attempt of this request this is: 1, then 2 for the first retry, and so on; 0 for
         * an interceptor around the whole call ({@code modelCallInterceptor}).
         */
        int attempt();

        /** The provider's name ({@code openai}, {@code anthropic}): {@code Provider#name()}. */
        String providerName();

        /**
         * The URI the provider sends requests to ({@code Provider#apiEndpoint()}): its host and
         * port are a trace's {@code server.address} and {@code server.port}. Empty when the
         * provider does not say.
         */
        default java.util.Optional<java.net.URI> providerEndpoint() {
            return java.util.Optional.empty();
        }

        /**
         * How the loop reads the text of this request's answer: the thinking and tool tags (or
         * the dialect's markers) its {@link dev.bellows.stream.StreamProcessor} looks for. An
         * interceptor that records the answer reads its chunks with the same options
         * (a {@code new StreamProcessor(options, listener)} fed each chunk as it passes) to tell thinking and tool
         * calls written in the text from the text, as the loop does. Empty when the chain does not
         * say (one made outside the loop).
         */
        default java.util.Optional<dev.bellows.stream.StreamOptions> streamOptions() {
            return java.util.Optional.empty();
        }

        /**
         * Sends {@code request} on: through the interceptors registered after this one, then to
         * the provider. Returns once the API has accepted it.
         *
         * @throws ProviderException as {@code Provider#stream} does
         */
        ChatStream proceed(ChatRequest request) throws ProviderException;
    }
}
