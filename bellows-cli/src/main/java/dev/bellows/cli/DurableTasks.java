package dev.bellows.cli;

import dev.bellows.a2a.server.WaitingRunAgent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.Session;
import dev.bellows.agent.SharedState;
import dev.bellows.agent.WaitingCall;
import dev.bellows.memory.StoredSession;
import dev.bellows.temporal.DurableAgent;
import dev.bellows.tool.LoopEndReason;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The agent of {@code bellows serve --a2a --temporal}'s A2A tasks (cli.md, "A2A: agents calling
 * agents"): each task is a durable run on the workers of the task queue, followed by the server,
 * so a task outlives the worker that was running it. A task's context is a durable session (its
 * name the store's session for the context), so a new task of the same context continues the
 * conversation there. A run that stops at calls waiting for approval waits in its workflow; the
 * task's next message decides them with the workflow's {@code decide} update
 * ({@link DurableAgent#decide}). The workflow id of the context's last run is kept in the
 * context's stored session (its metadata), so any server of the store finds it.
 */
final class DurableTasks implements WaitingRunAgent {

    /** The metadata key of a context's session that names its last durable run's workflow. */
    static final String LAST_RUN = "durable_run";
    private static final SharedState.Key<String> LAST_RUN_HERE = SharedState.Key.of("bellows.durable_run", String.class);
    /** How long giving a waiting run up waits for its workflow to close before the session's next run. */
    private static final long CLOSE_SECONDS = 60;

    private final DurableAgent durable;
    private final WorkflowClient client;

    DurableTasks(DurableAgent durable, WorkflowClient client) {
        this.durable = durable;
        this.client = client;
    }

    @Override
    public AgentRun run(String task) {
        return durable.run(task);
    }

    /** The next run of the durable session named after {@code session}, followed from its start. */
    @Override
    public AgentRun run(String task, Session session) {
        String id = session.name().map(name -> durable.start(task, name)).orElseGet(() -> durable.start(task));
        remember(session, id);
        return durable.follow(id);
    }

    /** The calls the context's last run waits on: read from its workflow's log while the workflow waits. */
    @Override
    public List<WaitingCall> waiting(Session session) {
        Optional<String> id = lastRun(session).filter(this::running);
        if (id.isEmpty()) {
            return List.of();
        }
        AgentResult result = durable.follow(id.get()).await();
        return result.reason() == LoopEndReason.INTERRUPTED ? result.waiting() : List.of();
    }

    @Override
    public AgentRun resume(Session session, List<Decision> decisions) {
        String id = lastRun(session).orElseThrow(() -> new IllegalArgumentException("no durable run of this context waits"));
        return durable.decide(id, decisions);
    }

    /**
     * Cancels the context's waiting run (its calls are given up, nothing is sent to the model) and
     * waits for its workflow to close, since the durable session takes no new run before. The
     * reason is not recorded: a workflow's cancellation carries none.
     */
    @Override
    public void giveUp(Session session, String reason) {
        Optional<String> id = lastRun(session).filter(this::running);
        if (id.isEmpty()) {
            return;
        }
        durable.cancel(id.get());
        try {
            client.newUntypedWorkflowStub(id.get()).getResult(CLOSE_SECONDS, TimeUnit.SECONDS, Object.class);
        } catch (WorkflowException closed) {
            // canceled: what was asked
        } catch (TimeoutException e) {
            throw new IllegalStateException("the waiting durable run " + id.get() + " was canceled but has not closed"
                    + " within " + CLOSE_SECONDS + " s (is a worker polling the task queue?)", e);
        }
    }

    private boolean running(String workflowId) {
        try {
            return client.newUntypedWorkflowStub(workflowId).describe().getStatus()
                    == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
        } catch (WorkflowNotFoundException gone) {
            return false;       // past the namespace's retention
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    private static void remember(Session session, String workflowId) {
        if (session.memory().store() instanceof StoredSession stored) {
            stored.putMetadata(Map.of(LAST_RUN, workflowId));
        } else {
            session.state().put(LAST_RUN_HERE, workflowId);
        }
    }

    private static Optional<String> lastRun(Session session) {
        if (session.memory().store() instanceof StoredSession stored) {
            return Optional.ofNullable(stored.metadata().get(LAST_RUN)).filter(id -> !id.isBlank());
        }
        return session.state().get(LAST_RUN_HERE);
    }
}
