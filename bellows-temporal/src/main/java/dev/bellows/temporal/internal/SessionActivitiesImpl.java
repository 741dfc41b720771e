package dev.bellows.temporal.internal;

import io.temporal.client.WorkflowClient;
import java.util.Objects;

/**
 * Reads the previous run's conversation with the workflow's {@code conversation} query (a
 * worker of the task queue answers it, replaying that run's history). As an activity, its
 * result is recorded once in the new run's history, so every replay of the new run starts from
 * the same conversation.
 */
public final class SessionActivitiesImpl implements SessionActivities {

    private final WorkflowClient client;

    public SessionActivitiesImpl(WorkflowClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public Conversation conversation(String workflowId) {
        return client.newUntypedWorkflowStub(workflowId).query(RunWorkflow.CONVERSATION, Conversation.class);
    }
}
