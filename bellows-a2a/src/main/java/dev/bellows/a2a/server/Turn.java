package dev.bellows.a2a.server;

import dev.bellows.a2a.Message;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.a2a.TaskStatusUpdateEvent;
import java.util.concurrent.CompletableFuture;

/**
 * One message's run of the executor on a task: what it reported first (an event, a direct
 * reply, or a failure before either), and when the task settled (a final or interrupted state,
 * or the executor's end), which a blocking SendMessage waits for.
 */
final class Turn {

    /** What the turn's first report was. */
    sealed interface First permits Reported, Replied, Failed {
    }

    /** The executor reported an event: the task stands. */
    record Reported() implements First {
    }

    /** The executor answered a new task with a message instead. */
    record Replied(Message message) implements First {
    }

    /** The executor failed (or ended) before reporting anything. */
    record Failed(Throwable cause) implements First {
    }

    private final TaskEngine engine;
    private final LiveTask live;
    private final boolean newTask;
    private final boolean eager;
    private final CompletableFuture<First> first = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private volatile Thread worker;

    /**
     * @param newTask a new task, kept only once the executor reports on it
     * @param eager   a new task kept from the start (the client did not wait): a failure before
     *                any report fails it
     */
    Turn(TaskEngine engine, LiveTask live, boolean newTask, boolean eager) {
        this.engine = engine;
        this.live = live;
        this.newTask = newTask;
        this.eager = eager;
    }

    String taskId() {
        return live.id();
    }

    String contextId() {
        return live.contextId();
    }

    LiveTask live() {
        return live;
    }

    CompletableFuture<First> first() {
        return first;
    }

    CompletableFuture<Void> settled() {
        return settled;
    }

    void worker(Thread thread) {
        this.worker = thread;
    }

    void interrupt() {
        Thread thread = worker;
        if (thread != null) {
            thread.interrupt();
        }
    }

    boolean isFinal() {
        return live.state().terminal();
    }

    boolean reported() {
        return first.isDone() && !(first.join() instanceof Failed);
    }

    /**
     * Applies and reports an event; what is stored is stored outside the turn's lock (no lock is
     * held across the store's I/O), and the turn settles once it is.
     */
    void emit(StreamResponse event) {
        boolean save;
        TaskState state;
        synchronized (this) {
            boolean registered = newTask && !first.isDone() && engine.register(live);
            if (first.isDone() && first.join() instanceof Replied) {
                return;     // a task answered by a message has no task to report on
            }
            if (!live.apply(event)) {
                return;
            }
            first.complete(new Reported());
            engine.applied(live, event);
            state = event.statusUpdate() == null ? null : event.statusUpdate().status().state();
            save = registered || state != null;
        }
        if (save) {
            engine.save(live);
        }
        if (state != null && (state.terminal() || state.interrupted())) {
            settled.complete(null);
        }
    }

    void emit(TaskStatusUpdateEvent update) {
        emit(StreamResponse.of(update));
    }

    void emit(dev.bellows.a2a.TaskArtifactUpdateEvent update) {
        emit(StreamResponse.of(update));
    }

    void reply(Message message) {
        synchronized (this) {
            if (newTask && !first.isDone()) {
                live.apply(StreamResponse.of(message));
                first.complete(new Replied(message));
                settled.complete(null);
                return;
            }
        }
        emit(StreamResponse.of(new TaskStatusUpdateEvent(taskId(), contextId(),
                TaskStatus.of(TaskState.COMPLETED, message.inTask(taskId(), contextId())), null)));
    }

    /** The executor returned or threw: settles what it left open. */
    void ended(Throwable failure) {
        StreamResponse closing = null;
        synchronized (this) {
            if (!first.isDone() && eager) {
                closing = failed(failure == null ? "the agent ended without reporting anything"
                        : "the agent failed: " + failure.getMessage());
            } else if (!first.isDone()) {
                first.complete(new Failed(failure != null ? failure : new dev.bellows.a2a.A2aException(
                        dev.bellows.a2a.A2aError.INVALID_AGENT_RESPONSE, "the agent ended without reporting anything")));
            } else if (first.join() instanceof Reported) {
                TaskState state = live.state();
                if (failure != null && !state.terminal()) {
                    closing = failed("the agent failed: " + failure.getMessage());
                } else if (!state.terminal() && !state.interrupted()) {
                    closing = failed("the agent ended without a final state");
                }
            }
        }
        if (closing != null) {
            emit(closing);
        }
        settled.complete(null);
        live.end(this);
        engine.turnEnded(live);
    }

    private StreamResponse failed(String why) {
        return StreamResponse.of(new TaskStatusUpdateEvent(taskId(), contextId(), TaskStatus.of(TaskState.FAILED,
                Message.agentText(why).inTask(taskId(), contextId())), null));
    }
}
