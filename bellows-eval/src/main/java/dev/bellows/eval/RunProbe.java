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
 * run's model calls (retries included). An {@link AgentFactory} that builds an agent per run
 * installs it with {@link #install(AgentBuilder)}; one that builds its agent once, for every
 * run, gives that agent {@link #counter()} instead. Without either the run's tokens are unknown
 * (and {@code max_tokens} fails saying so). Thread-safe.
 */
public final class RunProbe {

    /**
     * The probe of the run the runner's thread is making, inherited by the threads the run
     * starts (a {@code DefaultAgent}'s run thread and tool threads, without an executor of the
     * caller's): how {@link #counter()} finds its run.
     */
    static final InheritableThreadLocal<RunProbe> CURRENT = new InheritableThreadLocal<>();

    /** The counter shared by every agent built once for many runs. */
    private static final ModelInterceptor COUNTER = chain -> {
        RunProbe probe = CURRENT.get();
        if (probe == null) {
            return chain.proceed(chain.request());      // a call outside an evaluation's run: not counted
        }
        probe.installed.set(true);
        return probe.new Counting(chain.request().model(), chain.proceed(chain.request()));
    };

    private final AtomicLong input = new AtomicLong();
    private final AtomicLong output = new AtomicLong();
    /** By model: input and output tokens, for the run's cost. */
    private final java.util.concurrent.ConcurrentMap<String, long[]> byModel = new java.util.concurrent.ConcurrentHashMap<>();
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
        return chain -> new Counting(chain.request().model(), chain.proceed(chain.request()));
    }

    /**
     * The model interceptor for an agent an {@link AgentFactory} builds once and returns for
     * every run: it counts each model call's tokens into the probe of the run the call is made
     * for. It finds that run through the thread the call is made on, which the runner's thread
     * started (a {@code DefaultAgent}'s own run and tool threads are; an agent built with an
     * {@code executor} of the caller's runs on threads that are not, and its tokens stay
     * unknown). A call made outside an evaluation's run passes through uncounted.
     *
     * <pre>{@code
     * DefaultAgent agent = DefaultAgent.builder().provider(provider).model("gpt-4.1-mini")
     *         .toolRegistry(tools).modelInterceptor(RunProbe.counter()).build();
     * AgentFactory factory = (evalCase, probe) -> agent;
     * }</pre>
     */
    public static ModelInterceptor counter() {
        return COUNTER;
    }

    /** The tokens counted so far; empty when the probe was never installed. */
    Optional<TokenUsage> tokens() {
        return installed.get() ? Optional.of(new TokenUsage(input.get(), output.get())) : Optional.empty();
    }

    /**
     * What the run cost at {@code prices}: empty when its tokens are unknown or it called a model
     * without a price.
     */
    Optional<Double> cost(java.util.Map<String, Price> prices) {
        if (prices.isEmpty() || !installed.get()) {
            return Optional.empty();
        }
        double cost = 0;
        for (java.util.Map.Entry<String, long[]> model : byModel.entrySet()) {
            Price price = prices.get(model.getKey());
            if (price == null) {
                return Optional.empty();
            }
            synchronized (model.getValue()) {
                cost += price.cost(new TokenUsage(model.getValue()[0], model.getValue()[1]));
            }
        }
        return Optional.of(cost);
    }

    /** The answer's stream as it was, its usage added once the answer has reported it. */
    private final class Counting implements ChatStream {
        private final String model;
        private final ChatStream stream;
        private boolean counted;

        Counting(String model, ChatStream stream) {
            this.model = model == null ? "" : model;
            this.stream = stream;
            byModel.computeIfAbsent(this.model, m -> new long[2]);     // a model called is priced, usage or not
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
                    long[] used = byModel.computeIfAbsent(model, m -> new long[2]);
                    synchronized (used) {
                        used[0] += usage.inputTokens();
                        used[1] += usage.outputTokens();
                    }
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
