package dev.bellows.a2a.server;

import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import java.util.List;
import java.util.Optional;

/**
 * Where an A2A server keeps its tasks (status, artifacts, history), each under the principal
 * that created it: a task is found only by its own principal. {@link #inMemory()} lives as long
 * as the process; {@link SessionTaskStore} keeps tasks in a Bellows session store (SQLite,
 * PostgreSQL), so they outlive a restart and are shared by the servers of one database, with
 * their push configs.
 * Implementations must be thread-safe.
 */
public interface TaskStore {

    /** Stores the task (replacing the one of its id). */
    void put(String principal, Task task);

    /** The principal's task of that id, if there is one. */
    Optional<Task> get(String principal, String taskId);

    /** Every task of the principal, in no particular order. */
    List<Task> list(String principal);

    /**
     * Keeps a task's push configs (credentials included), replacing those kept before; by
     * default not at all (they live in the server's memory only).
     */
    default void putPushConfigs(String principal, String taskId, List<TaskPushNotificationConfig> configs) {
    }

    /** The task's push configs as kept by {@link #putPushConfigs}; by default none. */
    default List<TaskPushNotificationConfig> pushConfigs(String principal, String taskId) {
        return List.of();
    }

    /** A store in this process's memory. */
    static TaskStore inMemory() {
        return new InMemoryTaskStore();
    }
}
