package dev.bellows.temporal.internal;

import dev.bellows.agent.AgentMachine;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.secret.Secrets;
import dev.bellows.stream.StreamChunk;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Consumer;

/**
 * The model-call activity: one attempt, straight to the worker's provider (the loop in the
 * workflow decides on retries, by its retry policy, so that each retry is an event of the run).
 * While the answer streams, a heartbeat every {@link #HEARTBEAT_EVERY} carries the stream events
 * so far, which followers read live; a heartbeat also goes out while the model is silent, so a
 * live worker is never taken for a dead one, and the heartbeat's answer is how a cancelled run
 * reaches the stream.
 *
 * <p>Failures are {@link ApplicationFailure}s of type {@link #failureType}, the provider's kind,
 * with the HTTP status and the {@code Retry-After} in milliseconds as details (each possibly
 * null), marked non-retryable when a retry cannot help (4xx, a malformed answer).
 */
public final class ModelActivitiesImpl implements ModelActivities {

    /** How often the live events go out while the answer streams. */
    public static final Duration HEARTBEAT_EVERY = Duration.ofMillis(200);
    /** The most characters of live events one heartbeat carries: past that, followers wait for the log. */
    public static final int LIVE_LIMIT = 256 * 1024;
    private static final System.Logger LOG = System.getLogger(ModelActivitiesImpl.class.getName());
    private static final String FAILURE_PREFIX = "BellowsProvider.";

    private final Provider provider;
    private final Function<Consumer<AgentEvent>, AgentMachine.Reader> readers;
    private final List<ModelInterceptor> interceptors;

    /**
     * @param provider the worker's provider, without retries of its own
     * @param readers  a reader of one answer as the run's loop reads it ({@code agent.machine(session)::reader})
     */
    public ModelActivitiesImpl(Provider provider, Function<Consumer<AgentEvent>, AgentMachine.Reader> readers) {
        this(provider, readers, List.of());
    }

    /**
     * @param interceptors the worker's own, around each attempt this worker makes (a tracer's
     *                     {@code chat} spans; {@link WorkerRun}), the first outermost
     */
    public ModelActivitiesImpl(Provider provider, Function<Consumer<AgentEvent>, AgentMachine.Reader> readers,
                               List<ModelInterceptor> interceptors) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.readers = Objects.requireNonNull(readers, "readers");
        this.interceptors = List.copyOf(interceptors);
    }

    /** The failure type of a provider exception's kind. */
    public static String failureType(ProviderException.Kind kind) {
        return FAILURE_PREFIX + kind.name();
    }

    /** The kind a failure type names, or null when it is not one of ours. */
    static ProviderException.Kind kindOf(String type) {
        if (type == null || !type.startsWith(FAILURE_PREFIX)) {
            return null;
        }
        try {
            return ProviderException.Kind.valueOf(type.substring(FAILURE_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public ModelAnswer stream(String call, WireRequest request, ModelAttempt attempt) {
        ActivityExecutionContext context = Activity.getExecutionContext();
        Live live = new Live(call, readers);
        Heartbeat heartbeat = new Heartbeat(context, live);
        ChatStream stream = null;
        List<StreamChunk> chunks = new ArrayList<>();
        try {
            heartbeat.start();
            stream = interceptors.isEmpty() ? provider.stream(request.toRequest()) : intercepted(context, request, attempt,
                    heartbeat);
            heartbeat.streaming(stream);
            RedactedChunks redacted = new RedactedChunks();
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                for (StreamChunk shown : redacted.next(chunk)) {
                    chunks.add(shown);
                    live.accept(shown);
                }
            }
            for (StreamChunk shown : redacted.finish()) {
                chunks.add(shown);
                live.accept(shown);
            }
            live.finish();
            ModelAnswer answer = new ModelAnswer(chunks, stream.finishReason().orElse(null), stream.usage().orElse(null));
            String tooBig = RecordLimit.tooBig("the model's answer", answer);
            if (tooBig != null) {
                throw failure(new ProviderException(ProviderException.Kind.CLIENT_ERROR, tooBig
                        + "; ask for a shorter answer"));
            }
            return answer;
        } catch (ProviderException e) {
            ActivityCompletionException stop = heartbeat.stopped();
            if (stop != null) {
                throw stop;
            }
            throw failure(e);
        } finally {
            heartbeat.close();
            if (stream != null) {
                stream.close();
            }
        }
    }

    private ChatStream intercepted(ActivityExecutionContext context, WireRequest request, ModelAttempt attempt,
                                   Heartbeat heartbeat) throws ProviderException {
        ModelAttempt made = attempt != null ? attempt : new ModelAttempt(null, 1, null, null, null, 0);
        return ModelInterceptor.proceed(interceptors, WorkerRun.of(context.getInfo(), made.agentName(), made.session(),
                made.task(), made.iteration(), made.lastFailure(), () -> heartbeat.stopped() != null),
                request.toRequest(), Math.max(1, made.number()), provider);
    }

    static ApplicationFailure failure(ProviderException e) {
        Integer status = e.statusCode().isPresent() ? e.statusCode().getAsInt() : null;
        Long retryAfter = e.retryAfter().map(Duration::toMillis).orElse(null);
        // The message is the provider's, redacted (a server may echo what it was sent); the cause's stack
        // stays on the worker.
        String message = Secrets.redact(e.getMessage());
        return e.retryable()
                ? ApplicationFailure.newFailure(message, failureType(e.kind()), status, retryAfter)
                : ApplicationFailure.newNonRetryableFailure(message, failureType(e.kind()), status, retryAfter);
    }

    /** The answer's stream events so far, as the run's loop will read them. */
    private static final class Live {
        private final String call;
        private final AgentMachine.Reader reader;
        private final List<String> events = new ArrayList<>();      // guarded by this
        private int characters;                                     // guarded by this
        private boolean complete = true;                            // guarded by this
        private LiveAnswer last;                                    // guarded by this: reused while nothing changed

        Live(String call, Function<Consumer<AgentEvent>, AgentMachine.Reader> readers) {
            this.call = call;
            this.reader = readers.apply(this::add);
        }

        void accept(StreamChunk chunk) {
            reader.accept(chunk);
        }

        void finish() {
            reader.finish();
        }

        private synchronized void add(AgentEvent event) {
            if (!complete) {
                return;
            }
            String json = EventJson.toJson(event, true).toString();
            if (characters + json.length() > LIVE_LIMIT) {
                complete = false;
            } else {
                characters += json.length();
                events.add(json);
            }
            last = null;
        }

        synchronized LiveAnswer snapshot() {
            if (last == null) {
                last = new LiveAnswer(call, events, complete);
            }
            return last;
        }
    }

    /**
     * Heartbeats on a thread of its own, every {@link #HEARTBEAT_EVERY} (the SDK sends them on to
     * the server at most as often as the worker's throttle allows), whether chunks come or not.
     * When the heartbeat says the run was cancelled or the activity is over, the stream is cancelled.
     */
    private static final class Heartbeat implements AutoCloseable {
        private final ActivityExecutionContext context;
        private final Live live;
        private final Object lock = new Object();
        private Thread thread;
        private ChatStream stream;                     // guarded by lock
        private ActivityCompletionException stopped;   // guarded by lock
        private boolean closed;                        // guarded by lock
        private boolean heartbeatFailureLogged;        // the beating thread's own

        Heartbeat(ActivityExecutionContext context, Live live) {
            this.context = context;
            this.live = live;
        }

        void start() {
            thread = Thread.ofVirtual().name("bellows-model-heartbeat").start(this::beat);
        }

        void streaming(ChatStream current) {
            boolean cancel;
            synchronized (lock) {
                stream = current;
                cancel = stopped != null;
            }
            if (cancel) {
                current.cancel();
            }
        }

        ActivityCompletionException stopped() {
            synchronized (lock) {
                return stopped;
            }
        }

        private void beat() {
            while (true) {
                try {
                    context.heartbeat(live.snapshot());
                } catch (ActivityCompletionException e) {
                    ChatStream current;
                    synchronized (lock) {
                        stopped = (ActivityCompletionException) e;
                        current = stream;
                    }
                    if (current != null) {
                        current.cancel();
                    }
                    return;
                } catch (RuntimeException e) {
                    // Not the server telling the call to stop (e.g. the snapshot could not be
                    // serialized): said once, and the next beat comes after the usual wait,
                    // not at once (a retry at once would spin).
                    if (!heartbeatFailureLogged) {
                        heartbeatFailureLogged = true;
                        LOG.log(System.Logger.Level.WARNING, "a heartbeat of the model call failed", e);
                    }
                }
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    try {
                        lock.wait(HEARTBEAT_EVERY.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (closed) {
                        return;
                    }
                }
            }
        }

        @Override
        public void close() {
            synchronized (lock) {
                closed = true;
                lock.notifyAll();
            }
            if (thread != null) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
