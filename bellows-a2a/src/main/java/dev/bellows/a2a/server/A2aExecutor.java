package dev.bellows.a2a.server;

/**
 * What an A2A server runs for each message it takes: the agent's side of a task. The server
 * calls {@link #execute} on a virtual thread of its own for every message (a new task, or the
 * next message of one that waits for input); the executor reports through the
 * {@link TaskUpdater}: {@code startWork}, artifacts, then one final state ({@code complete},
 * {@code fail}, {@code reject}, {@code requiresInput}), or one direct {@code reply} message
 * instead of a task. What it reports is kept, streamed and pushed by the server; the protocol
 * (ids, history, errors, pagination, streams) is the server's.
 *
 * <pre>{@code
 * A2aExecutor echo = (context, updater) -> {
 *     updater.startWork();
 *     updater.addArtifact(List.of(Part.text("you said: " + context.text())));
 *     updater.complete();
 * };
 * }</pre>
 *
 * <p>Implementations must be thread-safe: tasks run at once, each on its own thread.
 */
@FunctionalInterface
public interface A2aExecutor {

    /**
     * Handles one message. Throwing an {@link dev.bellows.a2a.A2aException} before reporting
     * anything answers the request with that error (the task, when it existed, stays as it
     * was); any other failure, or a throw after the first report, fails the task.
     *
     * @throws Exception when the message cannot be handled
     */
    void execute(RequestContext context, TaskUpdater updater) throws Exception;

    /**
     * Asked to cancel the task (CancelTask): stop what runs for it, then report
     * {@link TaskUpdater#cancel}. Called on the request's thread while {@link #execute} may
     * still run on its own; the server interrupts that thread afterwards, and marks the task
     * canceled itself when nothing did within a few seconds. By default it reports the
     * cancellation at once.
     */
    default void cancel(RequestContext context, TaskUpdater updater) {
        updater.cancel();
    }
}
