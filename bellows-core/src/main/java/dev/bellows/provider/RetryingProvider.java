package dev.bellows.provider;

import dev.bellows.stream.StreamChunk;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * A {@link Provider} whose streams retry retryable failures transparently, as the CLI spec's
 * "Provider failures" section says: before the first chunk and mid-stream, up to
 * {@link RetryPolicy#maxRetries()} times, waiting {@link RetryPolicy#delayBefore} between
 * attempts.
 *
 * <p>Before each wait the stream returns a {@link StreamChunk.Restart} frame and the
 * {@link RetryListener} gets the same facts as a {@link RetryNotice}, on the consuming thread;
 * the wait and the new attempt follow at the next {@link ChatStream#next()}. Everything the
 * stream returned before the restart belongs to the failed attempt and must be dropped (its
 * {@code discardPartialOutput} says whether there was any): the frames after it start the
 * answer again from its beginning.
 *
 * <p>{@link #stream(ChatRequest)} makes the first attempt at once: a non-retryable failure of
 * it (a 401, say) is thrown there, as {@link Provider#stream} promises. A retryable one is
 * kept and retried by the first {@link ChatStream#next()}, so that the wait can be cancelled
 * through the returned stream. Non-retryable failures and exhausted retries throw the last
 * {@link ProviderException}, its message saying how many attempts were made.
 * {@link ChatStream#cancel()} aborts at once, also during a wait, with
 * {@link ProviderException.Kind#CANCELLED}.
 */
public final class RetryingProvider implements Provider {

    // Messages of ProviderExceptions never hold a key (the providers redact them), so they may be logged.
    private static final System.Logger LOG = System.getLogger(RetryingProvider.class.getName());

    /** Waits between attempts; tests inject one that records instead of waiting. */
    @FunctionalInterface
    public interface Sleeper {

        /** {@link Thread#sleep(Duration)}. */
        Sleeper SYSTEM = Thread::sleep;

        /**
         * Waits for {@code delay}. A cancelled stream interrupts the waiting thread, so the
         * wait must end with {@link InterruptedException} when interrupted.
         */
        void sleep(Duration delay) throws InterruptedException;
    }

    private final Provider delegate;
    private final RetryPolicy policy;
    private final RetryListener listener;
    private final Sleeper sleeper;
    private final RandomGenerator random;

    /** With the real clock and random jitter. */
    public RetryingProvider(Provider delegate, RetryPolicy policy, RetryListener listener) {
        this(delegate, policy, listener, Sleeper.SYSTEM, null);
    }

    /**
     * @param listener told of every retry of every stream (see also {@link #stream(ChatRequest, RetryListener)})
     * @param sleeper  how to wait between attempts
     * @param random   the jitter's source, or null for {@link ThreadLocalRandom} (this
     *                 provider is shared between threads: a given generator must be thread-safe)
     */
    public RetryingProvider(Provider delegate, RetryPolicy policy, RetryListener listener, Sleeper sleeper,
                            RandomGenerator random) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.random = random;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    public RetryPolicy policy() {
        return policy;
    }

    @Override
    public ChatStream stream(ChatRequest request) throws ProviderException {
        return stream(request, listener);
    }

    /** A stream whose retries are told to {@code streamListener} instead of this provider's listener. */
    public ChatStream stream(ChatRequest request, RetryListener streamListener) throws ProviderException {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(streamListener, "streamListener");
        RetryingStream stream = new RetryingStream(request, streamListener);
        stream.firstAttempt();
        return stream;
    }

    @Override
    public java.util.Optional<java.net.URI> apiEndpoint() {
        return delegate.apiEndpoint();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * The same retries (policy, listener, waits, jitter) around another provider: each attempt
     * goes to {@code other}. The agent loop puts its model interceptors there, so that every
     * attempt passes through them. Closing the result closes {@code other}.
     */
    public RetryingProvider withDelegate(Provider other) {
        return new RetryingProvider(other, policy, listener, sleeper, random);
    }

    /** The provider each attempt goes to. */
    public Provider delegate() {
        return delegate;
    }

    @Override
    public String toString() {
        return "RetryingProvider[" + delegate.name() + ", " + policy + "]";
    }

    private final class RetryingStream implements ChatStream {

        private final ChatRequest request;
        private final RetryListener streamListener;
        private final Object lock = new Object();

        private volatile ChatStream current;
        private volatile ChatStream last;
        private volatile boolean cancelled;
        private Thread waiting;                 // guarded by lock

        private int attempts;                   // attempts started
        private int chunksOfAttempt;            // chunks returned by the current attempt
        private ProviderException pending;      // a failure to retry before reading again
        private boolean pendingHadChunks;
        private Duration pendingDelay;          // set once its restart frame went out, else null
        private boolean done;

        RetryingStream(ChatRequest request, RetryListener streamListener) {
            this.request = request;
            this.streamListener = streamListener;
        }

        void firstAttempt() throws ProviderException {
            attempts = 1;
            try {
                current = delegate.stream(request);
                last = current;
            } catch (ProviderException e) {
                if (!e.retryable() || policy.maxRetries() == 0) {
                    // Said here as well as in failed(): most refusals (401, 404, a bad request) come at once.
                    LOG.log(System.Logger.Level.DEBUG, () -> delegate.name() + ": not retried ("
                            + e.kind() + (e.retryable() ? ", retries are off" : ", a retry would not help")
                            + "): " + e.getMessage());
                    throw e;
                }
                pending = e;
                pendingHadChunks = false;
            }
        }

        @Override
        public StreamChunk next() throws ProviderException {
            while (true) {
                if (cancelled) {
                    throw cancelledException();
                }
                if (done) {
                    return null;
                }
                if (pending != null) {
                    if (pendingDelay == null) {
                        return restart();
                    }
                    retry();
                    continue;
                }
                ChatStream stream = current;
                StreamChunk chunk;
                try {
                    chunk = stream.next();
                } catch (ProviderException e) {
                    failed(e);
                    continue;
                }
                if (chunk == null) {
                    done = true;
                    return null;
                }
                chunksOfAttempt++;
                return chunk;
            }
        }

        /** Classifies a failure of the current attempt: rethrown, or kept to be retried. */
        private void failed(ProviderException e) throws ProviderException {
            closeQuietly(current);
            current = null;
            if (cancelled) {
                throw cancelledException();
            }
            if (!e.retryable()) {
                LOG.log(System.Logger.Level.DEBUG, () -> delegate.name() + ": not retried (" + e.kind()
                        + ", a retry would not help): " + e.getMessage());
                throw attempts == 1 ? e : withAttempts(e);
            }
            if (attempts > policy.maxRetries()) {
                LOG.log(System.Logger.Level.DEBUG, () -> delegate.name() + ": giving up after " + attempts
                        + " attempts: " + e.getMessage());
                throw withAttempts(e);
            }
            pending = e;
            pendingHadChunks = chunksOfAttempt > 0;
        }

        /** The frame that tells the consumer of the retry to come: the answer starts over. */
        private StreamChunk.Restart restart() {
            ProviderException failure = pending;
            Duration delay = policy.delayBefore(attempts, failure,
                    random != null ? random : ThreadLocalRandom.current());
            LOG.log(System.Logger.Level.DEBUG, () -> delegate.name() + ": retrying (attempt " + (attempts + 1) + " of "
                    + (policy.maxRetries() + 1) + ") in " + delay.toMillis() + " ms"
                    + (pendingHadChunks ? ", discarding the partial answer" : "") + ", after " + failure.kind()
                    + ": " + failure.getMessage());
            streamListener.onRetry(new RetryNotice(attempts + 1, failure.getMessage(), delay, pendingHadChunks));
            pendingDelay = delay;
            return new StreamChunk.Restart(attempts + 1, failure.getMessage(), delay, pendingHadChunks);
        }

        /** Waits the delay its restart frame announced, then starts the next attempt. */
        private void retry() throws ProviderException {
            waitFor(pendingDelay);
            pendingDelay = null;
            pending = null;
            attempts++;
            chunksOfAttempt = 0;
            ChatStream stream;
            try {
                stream = delegate.stream(request);
            } catch (ProviderException e) {
                failed(e);
                return;
            }
            current = stream;
            last = stream;
            if (cancelled) {                    // cancel() ran while the request was being sent
                stream.cancel();
                closeQuietly(stream);
                throw cancelledException();
            }
        }

        private void waitFor(Duration delay) throws ProviderException {
            synchronized (lock) {
                if (cancelled) {
                    throw cancelledException();
                }
                waiting = Thread.currentThread();
            }
            boolean interrupted = false;
            try {
                sleeper.sleep(delay);
            } catch (InterruptedException e) {
                interrupted = true;
            } finally {
                synchronized (lock) {
                    waiting = null;
                }
            }
            if (cancelled) {
                Thread.interrupted();           // our own interrupt, from cancel(): consumed here
                throw cancelledException();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new ProviderException(ProviderException.Kind.CANCELLED,
                        "interrupted while waiting to retry " + delegate.name());
            }
        }

        private ProviderException withAttempts(ProviderException e) {
            String message = e.getMessage() + " (gave up after " + attempts + (attempts == 1 ? " attempt)" : " attempts)");
            return new ProviderException(e.kind(), message, e.statusCode().isPresent() ? e.statusCode().getAsInt() : null,
                    e.retryAfter().orElse(null), e);
        }

        private ProviderException cancelledException() {
            return new ProviderException(ProviderException.Kind.CANCELLED, "the call to " + delegate.name() + " was cancelled");
        }

        @Override
        public Optional<String> finishReason() {
            ChatStream stream = last;
            return stream == null ? Optional.empty() : stream.finishReason();
        }

        @Override
        public Optional<TokenUsage> usage() {
            ChatStream stream = last;
            return stream == null ? Optional.empty() : stream.usage();
        }

        @Override
        public void cancel() {
            cancelled = true;
            ChatStream stream = current;
            if (stream != null) {
                stream.cancel();
            }
            synchronized (lock) {
                if (waiting != null) {
                    waiting.interrupt();
                }
            }
        }

        @Override
        public void close() {
            ChatStream stream = current;
            current = null;
            closeQuietly(stream);
        }

        private static void closeQuietly(ChatStream stream) {
            if (stream != null) {
                try {
                    stream.close();
                } catch (RuntimeException ignored) {
                    // releasing a failed attempt must not hide its failure
                }
            }
        }
    }
}
