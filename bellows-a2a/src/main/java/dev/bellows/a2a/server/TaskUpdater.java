package dev.bellows.a2a.server;

import dev.bellows.a2a.Artifact;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.TaskArtifactUpdateEvent;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.a2a.TaskStatusUpdateEvent;
import java.util.List;
import java.util.UUID;

/**
 * How an {@link A2aExecutor} reports on its task: each call is one event, applied to the task,
 * streamed to its subscribers and pushed to its webhooks in the order made. Once the task is in
 * a final state (completed, failed, canceled, rejected) further reports are ignored. Thread-safe.
 */
public final class TaskUpdater {

    private final Turn turn;

    TaskUpdater(Turn turn) {
        this.turn = turn;
    }

    /** The task's id. */
    public String taskId() {
        return turn.taskId();
    }

    /** The task's context id. */
    public String contextId() {
        return turn.contextId();
    }

    /** An agent message of this task with the given parts. */
    public Message newAgentMessage(List<Part> parts) {
        return Message.of(Role.AGENT, parts).inTask(taskId(), contextId());
    }

    /** The task is being worked on. */
    public void startWork() {
        status(TaskState.WORKING, null);
    }

    /** The task is being worked on, with a progress message. */
    public void startWork(Message message) {
        status(TaskState.WORKING, message);
    }

    /** The task waits for the client's next message; {@code message} asks for it (or null). */
    public void requiresInput(Message message) {
        status(TaskState.INPUT_REQUIRED, message);
    }

    /** The task waits for the client's next message. */
    public void requiresInput() {
        status(TaskState.INPUT_REQUIRED, null);
    }

    /** Adds a whole artifact with a fresh id. */
    public void addArtifact(List<Part> parts) {
        addArtifact(UUID.randomUUID().toString(), null, parts, false, true);
    }

    /**
     * Adds an artifact, or a chunk of one: with {@code append}, the parts extend the artifact of
     * that id sent before; without, they replace it. {@code lastChunk} marks its end.
     */
    public void addArtifact(String artifactId, String name, List<Part> parts, boolean append, boolean lastChunk) {
        turn.emit(new TaskArtifactUpdateEvent(taskId(), contextId(), new Artifact(artifactId, name, null,
                List.copyOf(parts), null, null), append, lastChunk, null));
    }

    /** The task completed. */
    public void complete() {
        status(TaskState.COMPLETED, null);
    }

    /** The task completed, with a closing message. */
    public void complete(Message message) {
        status(TaskState.COMPLETED, message);
    }

    /** The task failed; {@code message} says why. */
    public void fail(Message message) {
        status(TaskState.FAILED, message);
    }

    /** The agent refuses the task; {@code message} says why. */
    public void reject(Message message) {
        status(TaskState.REJECTED, message);
    }

    /** The task was canceled. */
    public void cancel() {
        status(TaskState.CANCELED, null);
    }

    /**
     * Answers with a message instead of a task: only as the first report for a new task (the
     * client then gets the message, and no task is kept); later, it is the task's status message.
     */
    public void reply(Message message) {
        turn.reply(message.inTask(null, contextId()));
    }

    /** Whether the task reached a final state. */
    public boolean isFinal() {
        return turn.isFinal();
    }

    private void status(TaskState state, Message message) {
        Message placed = message == null ? null : message.inTask(taskId(), contextId());
        turn.emit(new TaskStatusUpdateEvent(taskId(), contextId(), TaskStatus.of(state, placed), null));
    }
}
