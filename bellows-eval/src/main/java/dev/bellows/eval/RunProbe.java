package dev.bellows.eval;

import dev.bellows.agent.AgentBuilder;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run as the agent factory sees it: which repeat it is, and what the runner measures inside
 * the run's agent: the model's token usage, summed over the
 * run's model calls (retries included). An {@link AgentFactory} installs it in the agent it
 * builds with {@link #install(AgentBuilder)}; without it the run's tokens are unknown (and
 * {@code max_tokens} fails saying so). Thread-safe.
 */
public final class RunProbe {

    private final AtomicLong input = new AtomicLong();
    private final AtomicLong output = new AtomicLong();
    private final AtomicBoolean installed = new AtomicBoolean();
    private final int index;

    RunProbe(int index) {
        this.index = index;
    }

    /** Which repeat of its case the run is, from 1 (e.g. to seed a model differently per repeat). */
    public int index() {
        return index;
    }

    /** Adds the probe's model interceptor to {@code builder}, and returns the builder. */
    public <B extends AgentBuilder<B, ?>> B install(B builder) {
        installed.set(true);
        return builder.modelInterceptor(interceptor());
    }

    /** The interceptor, for agents built other ways; using it counts as installing the probe. */
    public ModelInterceptor interceptor() {
        installed.set(true);
        return chain -> new Counting(chain.proceed(chain.request()));
    }

    /** The tokens counted so far; empty when the probe was never installed. */
    Optional<TokenUsage> tokens() {
        return installed.get() ? Optional.of(new TokenUsage(input.get(), output.get())) : Optional.empty();
    }

    /** The answer's stream as it was, its usage added once the answer has reported it. */
    private final class Counting implements ChatStream {
        private final ChatStream stream;
        private boolean counted;

        Counting(ChatStream stream) {
            this.stream = stream;
        }

        @Override
        public StreamChunk next() throws ProviderException {
            StreamChunk chunk = stream.next();
            if (chunk == null) {
                count();
            }
            return chunk;
        }

        private void count() {
            if (!counted) {
                counted = true;
                stream.usage().ifPresent(usage -> {
                    input.addAndGet(usage.inputTokens());
                    output.addAndGet(usage.outputTokens());
                });
            }
        }

        @Override
        public Optional<String> finishReason() {
            return stream.finishReason();
        }

        @Override
        public Optional<TokenUsage> usage() {
            return stream.usage();
        }

        @Override
        public void cancel() {
            stream.cancel();
        }

        @Override
        public void close() {
            count();        // an answer read only in part may have reported its usage already
            stream.close();
        }
    }
}
