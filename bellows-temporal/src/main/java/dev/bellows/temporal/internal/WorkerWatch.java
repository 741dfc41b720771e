package dev.bellows.temporal.internal;

import dev.bellows.temporal.FollowNotice;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Whether a followed run's next step waits for a worker: no worker has taken its first step, or
 * an activity of it is scheduled and not started. After {@link #NOTICE_AFTER} of that, it asks
 * the server who polls the run's task queue (DescribeTaskQueue; Temporal's Java test server does
 * not implement it, and then the notice says what it cannot tell) and says so once, until the
 * run moves on. A client that started a run with no worker up used to print nothing at all.
 */
final class WorkerWatch {

    /** How long a step may wait for a worker before the follower says so. */
    static final Duration NOTICE_AFTER = Duration.ofSeconds(3);

    private final WorkflowClient client;
    private final Consumer<FollowNotice> notices;
    private long waitingSince = -1;
    private boolean looked;

    WorkerWatch(WorkflowClient client, Consumer<FollowNotice> notices) {
        this.client = client;
        this.notices = notices;
    }

    /**
     * Looks at the run as described now.
     *
     * @param untouched whether no worker has taken the run's first step
     */
    void look(DescribeWorkflowExecutionResponse described, boolean untouched) {
        boolean waiting = untouched || described.getPendingActivitiesList().stream()
                .anyMatch(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED);
        if (!waiting) {
            waitingSince = -1;
            looked = false;
            return;
        }
        long now = System.nanoTime();
        if (waitingSince < 0) {
            waitingSince = now;
        }
        if (looked || now - waitingSince < NOTICE_AFTER.toNanos()) {
            return;
        }
        looked = true;
        String queue = described.getExecutionConfig().getTaskQueue().getName();
        Boolean polled = polled(queue);
        if (polled == null) {
            notices.accept(new FollowNotice(FollowNotice.Kind.NO_WORKER, "no worker has taken the run's next step for "
                    + NOTICE_AFTER.toSeconds() + " s: none polls task queue " + queue + " yet, or all are busy; waiting"));
        } else if (!polled) {
            notices.accept(new FollowNotice(FollowNotice.Kind.NO_WORKER, "no worker is polling task queue " + queue
                    + " yet; waiting"));
        }
    }

    /** Whether some worker polls the queue; null when the server cannot tell. */
    private Boolean polled(String queue) {
        try {
            return client.getWorkflowServiceStubs().blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS)
                    .describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
                            .setNamespace(client.getOptions().getNamespace())
                            .setTaskQueue(TaskQueue.newBuilder().setName(queue))
                            .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
                            .build())
                    .getPollersCount() > 0;
        } catch (StatusRuntimeException e) {
            return null;        // UNIMPLEMENTED on the test server; unreachable: FrontendWatch says so
        }
    }
}
