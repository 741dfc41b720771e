package dev.bellows.a2a.server;

import dev.bellows.a2a.Task;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Tasks in memory, by principal then id. Thread-safe. */
final class InMemoryTaskStore implements TaskStore {

    private final Map<String, Map<String, Task>> tasks = new ConcurrentHashMap<>();

    @Override
    public void put(String principal, Task task) {
        tasks.computeIfAbsent(principal, p -> new ConcurrentHashMap<>()).put(task.id(), task);
    }

    @Override
    public Optional<Task> get(String principal, String taskId) {
        return Optional.ofNullable(tasks.getOrDefault(principal, Map.of()).get(taskId));
    }

    @Override
    public List<Task> list(String principal) {
        return List.copyOf(tasks.getOrDefault(principal, Map.of()).values());
    }
}
