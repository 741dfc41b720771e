package dev.bellows.temporal;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Session;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.RunInput;
import dev.bellows.temporal.internal.RunWorkflow;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
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

    private DurableAgent(Builder b) {
        this.client = b.client;
        this.taskQueue = b.taskQueue;
        this.listeners = List.copyOf(b.listeners);
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
        String id = "bellows-" + UUID.randomUUID();
        RunWorkflow workflow = client.newWorkflowStub(RunWorkflow.class, WorkflowOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setWorkflowId(id)
                .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
                .build());
        WorkflowClient.start(workflow::run, new RunInput(task));
        return id;
    }

    /** Starts a run and follows it. */
    @Override
    public AgentRun run(String task) {
        return follow(start(task));
    }

    /**
     * Not supported: a durable run's conversation lives in its workflow.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public AgentRun run(String task, Session session) {
        throw new UnsupportedOperationException("a durable run keeps its conversation in its workflow, not in a Session");
    }

    /** Follows the run with this workflow id from its first event. */
    public AgentRun follow(String workflowId) {
        return new FollowedRun(client, workflowId, 0, listeners);
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

        public DurableAgent build() {
            return new DurableAgent(this);
        }
    }
}
