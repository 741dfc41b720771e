package dev.bellows.a2a.server;

import dev.bellows.a2a.Artifact;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskArtifactUpdateEvent;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatusUpdateEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A task this server holds in memory while it may change: its current state (status,
 * artifacts, history), the log of the events applied to it since it was loaded, and its push
 * configs. Subscribers take a snapshot and the log's length together, then read the log from
 * there: no event is lost between the two, none is read twice. The lock guards memory only;
 * nothing waits on I/O while holding it.
 */
final class LiveTask {

    /** A snapshot and where in the log the events after it begin. */
    record Subscription(Task snapshot, int from) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** How long a message for a paused task waits for the turn that paused it to end. */
    private static final long PAUSED_TURN_GRACE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    private final String principal;
    private final int maxHistory;
    private Task task;
    private final List<StreamResponse> log = new ArrayList<>();
    private final List<TaskPushNotificationConfig> push = new ArrayList<>();
    private Turn turn;
    /** Push configs set before the task was first stored (with its first message), not yet kept. */
    private boolean pushUnsaved;

    LiveTask(Task task, String principal, int maxHistory) {
        this.task = task;
        this.principal = principal;
        this.maxHistory = maxHistory;
    }

    String id() {
        return task.id();
    }

    String contextId() {
        return task.contextId();
    }

    String principal() {
        return principal;
    }

    Task snapshot() {
        lock.lock();
        try {
            return task;
        } finally {
            lock.unlock();
        }
    }

    TaskState state() {
        return snapshot().status().state();
    }

    Subscription subscribe() {
        lock.lock();
        try {
            return new Subscription(task, log.size());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts a turn with the client's message, unless one runs: the message joins the history.
     *
     * @return the subscription from just after the message, or null when a turn runs already
     */
    Subscription begin(Turn next, Message message) {
        lock.lock();
        try {
            // A turn that paused the task (input or auth required) has said all it will, but its
            // thread may still be on its way out; a client that answers the question at once (the
            // @a2a-js/sdk client does) waits for it rather than being refused.
            long left = PAUSED_TURN_GRACE_NANOS;
            while (turn != null && task.status().state().interrupted() && left > 0) {
                try {
                    left = changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            if (turn != null) {
                return null;
            }
            turn = next;
            task = task.withHistory(bounded(append(task.history(), message)));
            return new Subscription(task, log.size());
        } finally {
            lock.unlock();
        }
    }

    Turn turn() {
        lock.lock();
        try {
            return turn;
        } finally {
            lock.unlock();
        }
    }

    void end(Turn ended) {
        lock.lock();
        try {
            if (turn == ended) {
                turn = null;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Applies an event and logs it; a status or artifact event for a task already in a final
     * state is dropped.
     *
     * @return whether it was applied
     */
    boolean apply(StreamResponse event) {
        lock.lock();
        try {
            if (event.message() == null && task.status().state().terminal()) {
                return false;
            }
            if (event.statusUpdate() != null) {
                TaskStatusUpdateEvent update = event.statusUpdate();
                task = task.withStatus(update.status());
                if (update.status().message() != null) {
                    task = task.withHistory(bounded(append(task.history(), update.status().message())));
                }
            } else if (event.artifactUpdate() != null) {
                task = task.withArtifacts(merge(task.artifacts(), event.artifactUpdate()));
            }
            log.add(event);
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The log's events from {@code from}, waiting up to {@code nanos} for one when there is none
     * yet; empty when none came (or the wait was cut short).
     */
    List<StreamResponse> events(int from, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (log.size() <= from && left > 0) {
                left = changed.awaitNanos(left);
            }
            return log.size() <= from ? List.of() : List.copyOf(log.subList(from, log.size()));
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no turn runs or {@code nanos} passed; true when none runs. */
    boolean awaitIdle(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (turn != null && left > 0) {
                left = changed.awaitNanos(left);
            }
            return turn == null;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the task is in a final state or {@code millis} passed. */
    boolean awaitTerminal(long millis) throws InterruptedException {
        lock.lock();
        try {
            long left = TimeUnit.MILLISECONDS.toNanos(millis);
            while (!task.status().state().terminal() && left > 0) {
                left = changed.awaitNanos(left);
            }
            return task.status().state().terminal();
        } finally {
            lock.unlock();
        }
    }

    List<TaskPushNotificationConfig> pushConfigs() {
        lock.lock();
        try {
            return List.copyOf(push);
        } finally {
            lock.unlock();
        }
    }

    /** Adds or replaces (same id) a push config; false when the task has {@code max} already. */
    boolean putPush(TaskPushNotificationConfig config, int max) {
        lock.lock();
        try {
            push.removeIf(existing -> existing.id().equals(config.id()));
            if (push.size() >= max) {
                return false;
            }
            push.add(config);
            pushUnsaved = true;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Whether push configs changed since this was last asked (then kept by the caller). */
    boolean pushUnsaved() {
        lock.lock();
        try {
            boolean unsaved = pushUnsaved;
            pushUnsaved = false;
            return unsaved;
        } finally {
            lock.unlock();
        }
    }

    void removePush(String id) {
        lock.lock();
        try {
            push.removeIf(existing -> existing.id().equals(id));
        } finally {
            lock.unlock();
        }
    }

    private List<Message> bounded(List<Message> history) {
        return history.size() <= maxHistory ? history : List.copyOf(history.subList(history.size() - maxHistory, history.size()));
    }

    private static List<Message> append(List<Message> history, Message message) {
        List<Message> all = new ArrayList<>(history == null ? List.of() : history);
        all.add(message);
        return List.copyOf(all);
    }

    /** The artifacts with an update applied: appended to the one of its id, or replacing it, or added. */
    static List<Artifact> merge(List<Artifact> artifacts, TaskArtifactUpdateEvent update) {
        List<Artifact> all = new ArrayList<>(artifacts == null ? List.of() : artifacts);
        Artifact incoming = update.artifact();
        for (int i = 0; i < all.size(); i++) {
            Artifact existing = all.get(i);
            if (existing.artifactId().equals(incoming.artifactId())) {
                if (Boolean.TRUE.equals(update.append())) {
                    List<Part> parts = new ArrayList<>(existing.parts());
                    parts.addAll(incoming.parts());
                    all.set(i, new Artifact(existing.artifactId(), existing.name() != null ? existing.name() : incoming.name(),
                            existing.description(), List.copyOf(parts), existing.metadata(), existing.extensions()));
                } else {
                    all.set(i, incoming);
                }
                return List.copyOf(all);
            }
        }
        all.add(incoming);
        return List.copyOf(all);
    }
}
