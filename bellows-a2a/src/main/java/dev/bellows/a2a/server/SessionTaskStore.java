package dev.bellows.a2a.server;

import tools.jackson.core.JacksonException;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.StoredSession;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Tasks kept in a Bellows {@link SessionStore} (SQLite, PostgreSQL): each task is a session of
 * its own, named {@code a2a-task-} and a digest of its principal and id, the task's JSON (and
 * its push configs') in the session's metadata. They outlive the server, and every server of one database sees them.
 * The store stays the caller's to close. Thread-safe: the writes of one task take turns (a
 * store takes one handle per session); reads never wait.
 */
public final class SessionTaskStore implements TaskStore {

    static final String PREFIX = "a2a-task-";
    static final String TASK = "a2a_task";
    static final String PRINCIPAL = "a2a_principal";
    static final String PUSH = "a2a_push";

    private final SessionStore store;
    /**
     * A store takes one handle per session at a time: the writes of one task (its state, its
     * push configs, from the executor's thread and a request's) take turns on one of these.
     */
    private final Object[] writing = new Object[64];

    public SessionTaskStore(SessionStore store) {
        this.store = Objects.requireNonNull(store, "store");
        for (int i = 0; i < writing.length; i++) {
            writing[i] = new Object();
        }
    }

    private void write(String name, Map<String, String> entries) {
        synchronized (writing[Math.floorMod(name.hashCode(), writing.length)]) {
            try (StoredSession session = store.open(name)) {
                session.putMetadata(entries);
            }
        }
    }

    @Override
    public void put(String principal, Task task) {
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(task);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the task cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        write(name(principal, task.id()), Map.of(TASK, json, PRINCIPAL, principal));
    }

    @Override
    public Optional<Task> get(String principal, String taskId) {
        return store.find(name(principal, taskId)).flatMap(info -> read(info, principal));
    }

    @Override
    public List<Task> list(String principal) {
        List<Task> tasks = new ArrayList<>();
        for (SessionInfo info : store.list()) {
            if (info.name().startsWith(PREFIX)) {
                read(info, principal).ifPresent(tasks::add);
            }
        }
        return tasks;
    }

    private static Optional<Task> read(SessionInfo info, String principal) {
        String json = info.metadata().get(TASK);
        if (json == null || !principal.equals(info.metadata().get(PRINCIPAL))) {
            return Optional.empty();
        }
        try {
            return Optional.of(Json.MAPPER.readValue(json, Task.class));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    @Override
    public void putPushConfigs(String principal, String taskId, List<TaskPushNotificationConfig> configs) {
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(configs);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the push configs cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        write(name(principal, taskId), Map.of(PUSH, json));
    }

    @Override
    public List<TaskPushNotificationConfig> pushConfigs(String principal, String taskId) {
        String json = store.find(name(principal, taskId)).map(info -> info.metadata().get(PUSH)).orElse(null);
        if (json == null || json.isEmpty()) {
            return List.of();
        }
        try {
            return List.of(Json.MAPPER.readValue(json, TaskPushNotificationConfig[].class));
        } catch (JacksonException e) {
            return List.of();
        }
    }

    static String name(String principal, String taskId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((principal + "\n" + taskId).getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }
}
