package dev.bellows.temporal.internal;

import dev.bellows.agent.RunContext;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The loop's provider inside the workflow: each attempt of a model call is one model-call
 * activity (at most one execution of it: the loop's retry policy, around this provider, decides
 * on retries, so each is a {@code retry} event of the run). Its answer comes back whole and is
 * streamed to the loop chunk by chunk, in the boundaries it came in.
 *
 * <p>A worker that dies mid-answer stops heartbeating; after the heartbeat timeout the attempt
 * fails here as a broken stream, which the loop retries like any other, on whichever worker
 * takes it. Workflow code: deterministic, one thread.
 */
final class ActivityProvider implements Provider {

    private final ActivityOptions options;
    private final EventLog log;
    private int calls;
    private boolean cancelled;
    private RunContext run;             // the run as its interceptors see it in the workflow, once it began
    private String session;             // the session the run belongs to, or null
    private int attempt = 1;            // of the request the next stream is for: the loop's retry listener says
    private String lastFailure;         // the error.type of the attempt that failed last

    ActivityProvider(WorkerSetup setup, EventLog log) {
        this.log = log;
        this.options = ActivityOptions.newBuilder()
                .setStartToCloseTimeout(setup.modelCallTimeout())
                .setHeartbeatTimeout(setup.heartbeatTimeout())
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                // A cancelled run ends once its model call has stopped on the worker (the heartbeat's answer
                // tells it), not while it may still run: a dead worker's call ends with its heartbeat timeout.
                .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
                .build();
    }

    @Override
    public String name() {
        return "temporal";
    }

    /** The run, as its interceptors see it in the workflow, and its session (or null). */
    void run(RunContext run, String session) {
        this.run = run;
        this.session = session;
    }

    /** The loop retries: the next stream is this attempt of the request before. */
    void retrying(int number) {
        attempt = number;
    }

    /** The run was cancelled while the loop waited to retry: the next attempt is not made. */
    void cancelled() {
        cancelled = true;
    }

    @Override
    public ChatStream stream(ChatRequest request) throws ProviderException {
        return stream(request, true);
    }

    /**
     * The provider of the run's sub-agents: the same activities, numbered in the same series, but
     * not shown live (a follower shows a nested answer from the run's log, marked with its agent,
     * once the sub-agent's call has passed its events on).
     */
    Provider nested() {
        return new Provider() {
            @Override
            public String name() {
                return ActivityProvider.this.name();
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                return ActivityProvider.this.stream(request, false);
            }
        };
    }

    private ChatStream stream(ChatRequest request, boolean live) throws ProviderException {
        if (cancelled) {
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        String id = "model-" + (++calls);
        ModelAttempt made = new ModelAttempt(run == null ? "bellows" : run.agentName(), attempt,
                attempt > 1 ? lastFailure : null, session, run == null ? "" : run.task(),
                run == null ? 0 : run.iteration());
        attempt = 1;
        ModelActivities models = Workflow.newActivityStub(ModelActivities.class, options);
        if (live) {
            log.streaming(id);
        }
        WireRequest wire = WireRequest.of(request);
        String tooBig = RecordLimit.tooBig("the conversation sent to the model", wire);
        if (tooBig != null) {
            // Scheduled, it would fail the workflow task on every attempt: the run would never end.
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR, tooBig
                    + "; set --max-context-tokens on the workers to keep it shorter");
        }
        ModelAnswer answer;
        try {
            answer = models.stream(id, wire, made);
        } catch (ActivityFailure failure) {
            if (live) {
                log.reading(null);
            }
            ProviderException e = providerException(failure);
            lastFailure = errorType(e);
            throw e;
        } catch (CanceledFailure e) {
            if (live) {
                log.reading(null);
            }
            cancelled = true;
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        if (live) {
            log.reading(id);
        }
        return new Recorded(answer);
    }

    private ProviderException providerException(ActivityFailure failure) {
        Throwable cause = failure.getCause();
        if (cause instanceof CanceledFailure) {
            cancelled = true;
            return new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        if (cause instanceof TimeoutFailure timeout) {
            return new ProviderException(ProviderException.Kind.STREAM_BROKEN, "the worker making the model call"
                    + " stopped (" + timeout.getTimeoutType().name().toLowerCase(java.util.Locale.ROOT)
                    .replace("timeout_type_", "") + " timeout)");
        }
        if (cause instanceof ApplicationFailure application) {
            ProviderException.Kind kind = ModelActivitiesImpl.kindOf(application.getType());
            String message = application.getOriginalMessage();
            if (kind == null) {
                return new ProviderException(ProviderException.Kind.PROTOCOL,
                        "the model call failed on the worker: " + message);
            }
            Integer status = detail(application, 0, Integer.class);
            Long retryAfter = detail(application, 1, Long.class);
            return new ProviderException(kind, message, status, retryAfter == null ? null : Duration.ofMillis(retryAfter),
                    null);
        }
        return new ProviderException(ProviderException.Kind.CONNECTION, "the model call failed: " + failure.getMessage());
    }

    /** A failed attempt's {@code error.type}, as a tracer on the worker names it: the HTTP status, else the kind. */
    static String errorType(ProviderException e) {
        return e.statusCode().isPresent() ? Integer.toString(e.statusCode().getAsInt())
                : e.kind().name().toLowerCase(java.util.Locale.ROOT);
    }

    private static <T> T detail(ApplicationFailure failure, int index, Class<T> type) {
        try {
            return failure.getDetails().get(index, type, type);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A recorded answer, streamed again. */
    private static final class Recorded implements ChatStream {
        private final List<StreamChunk> chunks;
        private final ModelAnswer answer;
        private int next;

        Recorded(ModelAnswer answer) {
            this.answer = answer;
            this.chunks = answer.chunks();
        }

        @Override
        public StreamChunk next() {
            return next < chunks.size() ? chunks.get(next++) : null;
        }

        @Override
        public Optional<String> finishReason() {
            return Optional.ofNullable(answer.finishReason());
        }

        @Override
        public Optional<TokenUsage> usage() {
            return Optional.ofNullable(answer.usage());
        }

        @Override
        public void cancel() {
        }

        @Override
        public void close() {
        }
    }
}
