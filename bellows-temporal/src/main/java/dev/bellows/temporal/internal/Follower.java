package dev.bellows.temporal.internal;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.api.workflowservice.v1.QueryWorkflowRequest;
import io.temporal.api.workflowservice.v1.QueryWorkflowResponse;
import io.temporal.api.query.v1.WorkflowQuery;
import io.temporal.client.WorkflowClient;
import dev.bellows.temporal.FollowNotice;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Follows a durable run from a client: its events from the run's log (the workflow's query),
 * and the answer being streamed from the heartbeat of the model-call activity that streams it
 * (DescribeWorkflowExecution), so that the events arrive while they happen, within
 * {@link #POLL} and a heartbeat. The events of an answer shown live are not shown again when the
 * log has them; an answer that broke off (a worker died) is followed in the log by the
 * {@code retry} that discards it, as in a local run.
 *
 * <p>Per poll: one DescribeWorkflowExecution; a query only when the history grew (or the run
 * ended). Each call has a deadline of its own, so a dead frontend is noticed within seconds
 * ({@link FrontendWatch}); a run whose next step waits for a worker is told of too
 * ({@link WorkerWatch}). Not thread-safe: one follower, one thread.
 */
public final class Follower {

    /** How often the follower looks. */
    public static final Duration POLL = Duration.ofMillis(200);
    /** The longest a describe may take: past it the frontend counts as not answering this time. */
    static final Duration DESCRIBE_DEADLINE = Duration.ofSeconds(5);
    /**
     * The longest a query of the log may take: a worker answers it, replaying the run (the whole
     * history with no workflow cache), so it gets longer than a describe.
     */
    static final Duration QUERY_DEADLINE = Duration.ofSeconds(15);

    private final WorkflowClient client;
    private final String workflowId;
    private final Consumer<AgentEvent> deliver;
    private long next;
    private long seenHistory = -1;
    private String streaming;       // the model call in flight as of the log last read
    private String live;            // the model call whose live events were shown
    private int liveShown;
    private int liveSkipped;
    private final FrontendWatch frontend;
    private final WorkerWatch workers;

    /**
     * @param from    the index in the run's log of the first event to deliver (0: from the start)
     * @param notices told why the run shows nothing for a while (the frontend lost, no worker)
     */
    public Follower(WorkflowClient client, String workflowId, long from, Consumer<AgentEvent> deliver,
                    Consumer<FollowNotice> notices, Duration frontendPatience) {
        this.client = client;
        this.workflowId = workflowId;
        this.deliver = deliver;
        this.next = from;
        this.frontend = new FrontendWatch(client.getWorkflowServiceStubs().getOptions().getTarget(), notices,
                frontendPatience);
        this.workers = new WorkerWatch(client, notices);
    }

    /**
     * Delivers the run's events until its {@code loop_end}, and returns that; or, when
     * {@code stop} turns true first, returns empty.
     *
     * @throws InterruptedException when the calling thread is interrupted
     */
    public Optional<LoopEvent.LoopEnd> follow(BooleanSupplier stop) throws InterruptedException {
        while (!stop.getAsBoolean()) {
            Optional<DescribeWorkflowExecutionResponse> look = describe();
            if (look.isEmpty()) {
                Thread.sleep(POLL);
                continue;
            }
            DescribeWorkflowExecutionResponse described = look.get();
            WorkflowExecutionStatus status = described.getWorkflowExecutionInfo().getStatus();
            boolean running = status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
            long history = described.getWorkflowExecutionInfo().getHistoryLength();
            if (running) {
                workers.look(described, untouched(history));
                if (untouched(history)) {
                    Thread.sleep(POLL);     // no worker has taken its first step: its log is empty
                    continue;
                }
            }
            if (!running && !seenClosed) {
                seenClosed = true;
                lastReadWhileClosed = System.nanoTime();
            }
            if (history != seenHistory || !running) {
                Optional<EventPage> read = readLog();
                if (read.isPresent()) {
                    lastReadWhileClosed = System.nanoTime();
                    seenHistory = history;
                    EventPage page = read.get();
                    // Only an end this follower delivered: one that follows a decision starts past the
                    // interrupted end of the run it carries on, whose new events are about to come.
                    if (page.ended() && next >= page.total() && lastEnd != null) {
                        return Optional.of(lastEnd);
                    }
                    if (next < page.total()) {
                        continue;           // more pages at once
                    }
                    if (!running) {
                        // Closed, its log read to the end without a loop_end to stop at (terminated, timed out):
                        // looking again would find nothing new.
                        return Optional.of(ended(status));
                    }
                } else if (!running && (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED
                        || unreadableSinceClosed())) {
                    return Optional.of(ended(status));
                }
            }
            if (running) {
                showLive(described);
            }
            Thread.sleep(POLL);
        }
        return Optional.empty();
    }

    /**
     * Whether no worker has taken the run's first step yet: its history holds only the start and
     * the first workflow task scheduled (a run followed from the start only).
     */
    private boolean untouched(long history) {
        return next == 0 && history <= 2;
    }

    private LoopEvent.LoopEnd lastEnd;
    private boolean seenClosed;
    /**
     * System.nanoTime() when this follower first saw the run closed, or last read its log since;
     * taken before the query, which waits for a worker to answer (the SDK retries it for up to a
     * minute), so that the time that wait took counts.
     */
    private long lastReadWhileClosed;

    /**
     * Whether a completed run's log has stayed unreadable long enough to give up on it. A
     * completed run's log ends with its loop_end, but a query on a closed workflow is answered
     * by a worker that replays it, and a busy or restarting worker may not answer in time:
     * giving up at the first failure ended a completed run as an error, its last events
     * unshown. A log that cannot be read for {@link #CLOSED_UNREADABLE} (no worker left) ends
     * the following with the workflow's status. (A terminated or timed-out run has no loop_end
     * to wait for: its following ends at once.)
     */
    private boolean unreadableSinceClosed() {
        return System.nanoTime() - lastReadWhileClosed >= CLOSED_UNREADABLE.toNanos();
    }

    /** How long the log of a closed run is looked for before the follower stops without it. */
    static final Duration CLOSED_UNREADABLE = Duration.ofSeconds(60);

    /** Reads and delivers one page of the log; empty when the workflow cannot answer yet. */
    private Optional<EventPage> readLog() {
        EventPage page;
        try {
            page = query();
        } catch (StatusRuntimeException e) {
            // Past its deadline, a query waited for a worker: only a frontend that is gone counts here.
            if (e.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE
                    || e.getStatus().getCode() == io.grpc.Status.Code.UNKNOWN) {
                frontend.failed(e);
            }
            return Optional.empty();        // not started yet, or no worker to answer: look again
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        for (int i = 0; i < page.events().size(); i++) {
            String source = page.sources().get(i);
            if (source != null && source.equals(live) && liveSkipped < liveShown) {
                liveSkipped++;              // shown live already
                continue;
            }
            event(page.events().get(i)).ifPresent(event -> {
                if (event instanceof LoopEvent.LoopEnd end) {
                    lastEnd = end;
                }
                deliver.accept(event);
            });
        }
        next = page.from() + page.events().size();
        streaming = page.streaming();
        return Optional.of(page);
    }

    private void showLive(DescribeWorkflowExecutionResponse described) {
        for (PendingActivityInfo activity : described.getPendingActivitiesList()) {
            if (!activity.getActivityType().getName().equals(ModelActivities.MODEL_CALL)
                    || !activity.hasHeartbeatDetails()) {
                continue;
            }
            LiveAnswer answer = Json.dataConverter().fromPayloads(0, Optional.of(activity.getHeartbeatDetails()),
                    LiveAnswer.class, LiveAnswer.class);
            // Only the call the log says is in flight: a description taken before the log was read may
            // still hold the heartbeat of a call whose answer the log has just delivered in full.
            if (answer == null || answer.call() == null || !answer.call().equals(streaming)) {
                continue;
            }
            if (!answer.call().equals(live)) {
                live = answer.call();
                liveShown = 0;
                liveSkipped = 0;
            }
            for (int i = liveShown; i < answer.events().size(); i++) {
                event(answer.events().get(i)).ifPresent(deliver);
            }
            liveShown = Math.max(liveShown, answer.events().size());
        }
    }

    /**
     * The workflow as the server describes it now; empty when the server could not answer this
     * time (unreachable, overloaded, slower than the call's deadline): a follower outlives a
     * cluster's restart and looks again. Any other failure (no such workflow) ends the following.
     */
    private Optional<DescribeWorkflowExecutionResponse> describe() {
        try {
            DescribeWorkflowExecutionResponse described = client.getWorkflowServiceStubs().blockingStub()
                    .withDeadlineAfter(DESCRIBE_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
                            .setNamespace(client.getOptions().getNamespace())
                            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                            .build());
            frontend.answered();
            return Optional.of(described);
        } catch (StatusRuntimeException e) {
            if (FrontendWatch.unreachable(e)) {
                frontend.failed(e);
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * One page of the run's log from {@link #next}, by the workflow's {@code events} query, with a
     * deadline (the client's own query retries an unreachable frontend for a minute, in silence).
     */
    private EventPage query() {
        var converter = client.getOptions().getDataConverter();
        QueryWorkflowResponse answer = client.getWorkflowServiceStubs().blockingStub()
                .withDeadlineAfter(QUERY_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .queryWorkflow(QueryWorkflowRequest.newBuilder()
                        .setNamespace(client.getOptions().getNamespace())
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                        .setQuery(WorkflowQuery.newBuilder().setQueryType("events")
                                .setQueryArgs(converter.toPayloads(next).orElseThrow()))
                        .build());
        frontend.answered();
        if (answer.hasQueryRejected() || !answer.hasQueryResult()) {
            throw new IllegalStateException("the events query was not answered");
        }
        return converter.fromPayloads(0, Optional.of(answer.getQueryResult()), EventPage.class, EventPage.class);
    }

    /** A workflow that ended without a loop_end in its log (terminated, timed out, failed). */
    private LoopEvent.LoopEnd ended(WorkflowExecutionStatus status) {
        String how = status.name().replace("WORKFLOW_EXECUTION_STATUS_", "").toLowerCase(java.util.Locale.ROOT);
        LoopEvent.LoopEnd end = status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED
                ? new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled")
                : new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the run's workflow " + workflowId + " ended (" + how
                + ") without the loop's end");
        deliver.accept(end);
        return end;
    }

    /** Asks the workflow to cancel: the activities in flight are cancelled, the loop ends {@code cancelled}. */
    public static void cancel(WorkflowClient client, String workflowId) {
        WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
        stub.cancel();
    }

    /** An event of the run's log or live answer, as core reads back what it wrote; empty for a newer worker's type. */
    private static Optional<AgentEvent> event(String json) {
        try {
            return EventJson.fromJson(Json.MAPPER.readTree(json));
        } catch (tools.jackson.core.JacksonException e) {
            throw new IllegalArgumentException("not an event: " + e.getOriginalMessage(), e);
        }
    }
}
