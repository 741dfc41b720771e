package dev.bellows.temporal;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.Session;
import dev.bellows.temporal.internal.Decisions;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.RunInput;
import dev.bellows.temporal.internal.RunWorkflow;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The client side of durable runs (see docs/temporal.md): starts a run as a workflow on a task
 * queue that {@link DurableWorker}s serve, and follows it, live. It needs no model, no key and no
 * tools: those are the workers'. {@link #run(String)} starts and follows;
 * {@link #start(String)} only starts (detached); {@link #follow(String)} follows a run started
 * before, from its first event, whether it is running or over. The events are the ones a local
 * run emits, to the listeners, on a thread of the run's own; {@link AgentRun#cancel()} cancels
 * the workflow (its model call and tool calls in flight included).
 *
 * <p>Thread-safe; runs share nothing but the client.
 */
public final class DurableAgent implements Agent {

    private final WorkflowClient client;
    private final String taskQueue;
    private final List<AgentListener> listeners;
    private final Consumer<FollowNotice> notices;
    private final Duration frontendPatience;

    /**
     * How long a follower tries again, by default, when the Temporal frontend stops answering
     * before its run ends with an error (the run's workflow may go on: follow it again); see
     * {@link Builder#frontendPatience(Duration)}.
     */
    public static final Duration FRONTEND_PATIENCE = Duration.ofSeconds(30);

    private final String agent;         // the agent the runs ask for, or null for the workers' own

    private DurableAgent(Builder b) {
        this.client = b.client;
        this.taskQueue = b.taskQueue;
        this.listeners = List.copyOf(b.listeners);
        this.notices = b.notices;
        this.frontendPatience = b.frontendPatience;
        this.agent = b.agent;
    }

    /**
     * A client for durable runs on {@code namespace}, with the data converter every client and
     * worker of durable runs must share (JSON, large payloads compressed).
     */
    public static WorkflowClient client(WorkflowServiceStubs service, String namespace) {
        return WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder()
                .setNamespace(namespace)
                .setDataConverter(Json.dataConverter())
                .build());
    }

    public static Builder builder(WorkflowClient client) {
        return new Builder(client);
    }

    /** Starts a run and returns its workflow id at once, without following it. */
    public String start(String task) {
        Objects.requireNonNull(task, "task");
        return start("bellows-" + UUID.randomUUID(), new RunInput(task, null, null, agent));
    }

    /**
     * Starts a run of the session {@code session}, which continues the conversation of the
     * session's last run, and returns its workflow id ({@code bellows-session-NAME-N}, the
     * session's N-th run) at once. A session is the chain of its runs' workflows: each run reads
     * the conversation of the one before it when it starts, so the session lasts as long as the
     * namespace's retention keeps its last run.
     *
     * @throws IllegalStateException when the session's last run has not ended (it is going on, or
     *                               waits for approval: follow it, or decide on its calls, first),
     *                               or another client has just started the session's next run
     */
    public String start(String task, String session) {
        Objects.requireNonNull(task, "task");
        if (Objects.requireNonNull(session, "session").isBlank()) {
            throw new IllegalArgumentException("a session's name cannot be blank");
        }
        long last = lastRun(session);
        String previous = last == 0 ? null : sessionRun(session, last);
        if (previous != null && status(previous) == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
            throw new IllegalStateException("the session " + session + "'s last run " + previous + " has not ended (it"
                    + " is going on, or waits for approval): follow it, or decide on its calls, first");
        }
        String id = sessionRun(session, last + 1);
        try {
            return start(id, new RunInput(task, previous, session, agent));
        } catch (WorkflowExecutionAlreadyStarted e) {
            throw new IllegalStateException("the session " + session + " is in use: another client has just started"
                    + " its run " + id, e);
        }
    }

    private String start(String id, RunInput input) {
        RunWorkflow workflow = client.newWorkflowStub(RunWorkflow.class, WorkflowOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setWorkflowId(id)
                .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                .build());
        WorkflowClient.start(workflow::run, input);
        return id;
    }

    private static String sessionRun(String session, long n) {
        return "bellows-session-" + session + "-" + n;
    }

    /**
     * The number of the session's last run (0 for none): the runs are numbered 1, 2, ... with no
     * gap, so a doubling then a halving search finds the last in about 2 log2(N) describes.
     */
    private long lastRun(String session) {
        long missing = 1;
        while (status(sessionRun(session, missing)) != null) {
            missing *= 2;
        }
        long present = missing / 2;     // 0, or a run that exists
        while (missing - present > 1) {
            long middle = present + (missing - present) / 2;
            if (status(sessionRun(session, middle)) != null) {
                present = middle;
            } else {
                missing = middle;
            }
        }
        return present;
    }

    /** The workflow's status, or null when there is no such workflow. */
    private WorkflowExecutionStatus status(String workflowId) {
        try {
            return client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
                    DescribeWorkflowExecutionRequest.newBuilder()
                            .setNamespace(client.getOptions().getNamespace())
                            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                            .build()).getWorkflowExecutionInfo().getStatus();
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    /** Starts a run and follows it. */
    @Override
    public AgentRun run(String task) {
        return follow(start(task));
    }

    /**
     * Not supported: a durable run's conversation lives in its workflow; a durable session is
     * named, see {@link #start(String, String)}.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public AgentRun run(String task, Session session) {
        throw new UnsupportedOperationException("a durable run keeps its conversation in its workflow, not in a Session:"
                + " name a durable session with start(task, sessionName)");
    }

    /** Follows the run with this workflow id from its first event. */
    public AgentRun follow(String workflowId) {
        return new FollowedRun(client, workflowId, 0, listeners, notices, frontendPatience);
    }

    /**
     * Decides on the tool calls the run with this workflow id waits on (it ended its events with
     * {@code approval_required} and {@code loop_end} {@code interrupted}, and its workflow waits),
     * and follows the run carried on from there: its events begin with {@code loop_start} (the
     * original task) and the {@code approval} events, as {@code DefaultAgent.resume} does locally.
     * Approved calls run once, on a worker; denied ones reach the model as denials, with the
     * reason. Takes {@link Decision#approve(String)}, {@link Decision#approve(String,
     * tools.jackson.databind.JsonNode)} (the call runs with these arguments
     * instead, checked against the tool's schema first; they are recorded in the workflow's
     * history, as the model's are) and {@link Decision#deny(String, String)}.
     *
     * @throws IllegalArgumentException when the decisions do not fit: a waiting call left out, an
     *                                  unknown id, an id twice, edited arguments that do not match
     *                                  the tool's schema, or a result; or when the run waits for
     *                                  nothing. Nothing is recorded then.
     */
    public AgentRun decide(String workflowId, List<? extends Decision> decisions) {
        Objects.requireNonNull(workflowId, "workflowId");
        List<Decisions.Decided> wire = new ArrayList<>();
        for (Decision decision : decisions) {
            wire.add(switch (decision) {
                case Decision.Approve a -> new Decisions.Decided(a.callId(), true, null,
                        a.arguments() == null ? null : a.arguments().toString());
                case Decision.Deny d -> new Decisions.Decided(d.callId(), false, d.reason(), null);
                case Decision.Respond r -> throw new IllegalArgumentException(
                        "call " + r.callId() + ": a durable run's calls wait for approval: approve or deny it");
            });
        }
        long from;
        try {
            from = client.newUntypedWorkflowStub(workflowId).update(RunWorkflow.DECIDE, Long.class,
                    new Decisions(wire));
        } catch (WorkflowNotFoundException e) {
            // An update reaches running workflows only.
            throw new IllegalArgumentException("the run " + workflowId + " waits for no approval: it has ended, or"
                    + " there is no such run", e);
        } catch (WorkflowUpdateException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ApplicationFailure refused) {
                throw new IllegalArgumentException(refused.getOriginalMessage(), e);
            }
            throw e;
        }
        return new FollowedRun(client, workflowId, from, listeners, notices, frontendPatience);
    }

    /** Cancels the run with this workflow id: its loop ends {@code cancelled}. */
    public void cancel(String workflowId) {
        client.newUntypedWorkflowStub(workflowId).cancel();
    }

    /** Builds a {@link DurableAgent}. */
    public static final class Builder {
        private final WorkflowClient client;
        private String taskQueue = DurableWorker.DEFAULT_TASK_QUEUE;
        private final List<AgentListener> listeners = new ArrayList<>();
        private Consumer<FollowNotice> notices = notice -> { };
        private Duration frontendPatience = FRONTEND_PATIENCE;
        private String agent;

        private Builder(WorkflowClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        public Builder taskQueue(String taskQueue) {
            this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue");
            return this;
        }

        /** Hears every event of every run this agent starts or follows, as it happens. */
        public Builder listener(AgentListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Told, on the following thread, why a followed run shows nothing for a while (the
         * frontend stopped answering, no worker takes its next step), within a few seconds of
         * it; by default nobody is told.
         */
        public Builder notices(Consumer<FollowNotice> notices) {
            this.notices = Objects.requireNonNull(notices, "notices");
            return this;
        }

        /**
         * How long a follower tries again when the frontend stops answering before the run's
         * following ends with an error (default {@link #FRONTEND_PATIENCE}, 30 s). Shorter gives
         * up sooner on a frontend that is gone; longer rides out a longer restart.
         *
         * @throws IllegalArgumentException when it is not positive
         */
        public Builder frontendPatience(Duration patience) {
            if (Objects.requireNonNull(patience, "patience").isNegative() || patience.isZero()) {
                throw new IllegalArgumentException("the frontend patience must be positive: " + patience);
            }
            this.frontendPatience = patience;
            return this;
        }

        /**
         * The agent the runs are for ({@link DurableWorker.Builder#agents}): a worker serving
         * another agent, or none by name, ends such a run {@code error} at once, saying which it
         * serves. Without it, the run is the workers' agent, whichever it is.
         */
        public Builder agent(String name) {
            this.agent = Objects.requireNonNull(name, "name");
            return this;
        }

        public DurableAgent build() {
            return new DurableAgent(this);
        }
    }
}
