package dev.bellows.agent;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import java.util.List;
import java.util.Optional;

/**
 * One attempt of a model request through the {@link ModelInterceptor}s, OkHttp-style: each
 * chain holds the position of the next interceptor; the last sends to the provider.
 */
final class ModelChain implements ModelInterceptor.Chain {

    private final List<ModelInterceptor> interceptors;
    private final int index;
    private final RunContext run;
    private final ChatRequest request;
    private final int attempt;
    private final Provider provider;
    private final StreamOptions streamOptions;
    /** What this chain's {@code proceed} returned last, to tell an interceptor's own stream from it. */
    private ChatStream returned;

    ModelChain(List<ModelInterceptor> interceptors, int index, RunContext run, ChatRequest request, int attempt,
               Provider provider, StreamOptions streamOptions) {
        this.interceptors = interceptors;
        this.index = index;
        this.run = run;
        this.request = request;
        this.attempt = attempt;
        this.provider = provider;
        this.streamOptions = streamOptions;
    }

    @Override
    public RunContext run() {
        return run;
    }

    @Override
    public ChatRequest request() {
        return request;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public String providerName() {
        return provider.name();
    }

    @Override
    public Optional<java.net.URI> providerEndpoint() {
        return provider.apiEndpoint();
    }

    @Override
    public Optional<StreamOptions> streamOptions() {
        return Optional.ofNullable(streamOptions);
    }

    @Override
    public ChatStream proceed(ChatRequest next) throws ProviderException {
        java.util.Objects.requireNonNull(next, "request");
        if (index == interceptors.size()) {
            returned = provider.stream(next);
            return returned;
        }
        ModelInterceptor interceptor = interceptors.get(index);
        ModelChain chain = new ModelChain(interceptors, index + 1, run, next, attempt, provider, streamOptions);
        ChatStream stream;
        try {
            stream = interceptor.intercept(chain);
        } catch (ProviderException e) {
            throw e;
        } catch (RuntimeException e) {
            throw InterceptorFailure.of("model interceptor", interceptor, e);
        }
        if (stream == null) {
            throw InterceptorFailure.returnedNull("model interceptor", interceptor);
        }
        // The interceptor's own stream (a wrapper, a replacement): what it throws names it.
        returned = stream == chain.returned ? stream : new Guarded(stream, interceptor);
        return returned;
    }

    /** A stream an interceptor made: an unchecked exception from it ends the run naming the interceptor. */
    private static final class Guarded extends ForwardingChatStream {
        private final ModelInterceptor interceptor;

        Guarded(ChatStream stream, ModelInterceptor interceptor) {
            super(stream);
            this.interceptor = interceptor;
        }

        @Override
        public StreamChunk next() throws ProviderException {
            try {
                return super.next();
            } catch (RuntimeException e) {
                throw InterceptorFailure.of("model interceptor", interceptor, e);
            }
        }

        @Override
        public Optional<String> finishReason() {
            try {
                return super.finishReason();
            } catch (RuntimeException e) {
                throw InterceptorFailure.of("model interceptor", interceptor, e);
            }
        }

        @Override
        public Optional<TokenUsage> usage() {
            try {
                return super.usage();
            } catch (RuntimeException e) {
                throw InterceptorFailure.of("model interceptor", interceptor, e);
            }
        }
    }
}
