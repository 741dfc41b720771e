package dev.bellows.a2a.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.bellows.a2a.Task;
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
 * its own, named {@code a2a-task-} and a digest of its principal and id, the task's JSON in the
 * session's metadata. They outlive the server, and every server of one database sees them.
 * The store stays the caller's to close. Thread-safe as the store is.
 */
public final class SessionTaskStore implements TaskStore {

    static final String PREFIX = "a2a-task-";
    static final String TASK = "a2a_task";
    static final String PRINCIPAL = "a2a_principal";

    private final SessionStore store;

    public SessionTaskStore(SessionStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public void put(String principal, Task task) {
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(task);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the task cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        try (StoredSession session = store.open(name(principal, task.id()))) {
            session.putMetadata(Map.of(TASK, json, PRINCIPAL, principal));
        }
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
        } catch (JsonProcessingException e) {
            return Optional.empty();
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
