package dev.bellows.a2a.server;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.ListTasksResponse;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.a2a.TaskStatusUpdateEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protocol's operations, binding-independent: tasks created, continued, read, listed,
 * canceled and subscribed to, each for one principal; the executor run on a virtual thread per
 * message. Thread-safe.
 */
final class TaskEngine {

    private static final System.Logger LOG = System.getLogger(TaskEngine.class.getName());
    static final int DEFAULT_PAGE_SIZE = 50;
    static final int MAX_PAGE_SIZE = 100;

    /** A message taken: the turn that handles it, and where its events begin. */
    record Started(Turn turn, LiveTask.Subscription subscription) {
    }

    private final A2aExecutor executor;
    private final TaskStore store;
    private final PushDelivery push;
    private final int maxHistory;
    private final int maxPushConfigs;
    private final Duration cancelWait;
    private final MediaTypes accepted;
    private final Map<String, LiveTask> live = new ConcurrentHashMap<>();
    private final Set<Turn> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;

    TaskEngine(A2aExecutor executor, TaskStore store, PushDelivery push, int maxHistory, int maxPushConfigs,
               Duration cancelWait, MediaTypes accepted) {
        this.accepted = accepted;
        this.executor = executor;
        this.store = store;
        this.push = push;
        this.maxHistory = maxHistory;
        this.maxPushConfigs = maxPushConfigs;
        this.cancelWait = cancelWait;
    }

    boolean pushEnabled() {
        return push != null;
    }

    // --- sending ---

    Started send(String principal, SendMessageRequest request, boolean commitNow) {
        if (closing) {
            throw new A2aException(A2aError.UNSUPPORTED_OPERATION, "the server is shutting down and takes no new message");
        }
        Message message = checked(request == null ? null : request.message());
        for (Part part : message.parts()) {
            if (part.mediaType() != null && !part.mediaType().isEmpty() && !accepted.accepts(part.mediaType())) {
                throw new A2aException(A2aError.CONTENT_TYPE_NOT_SUPPORTED, "a part's media type " + part.mediaType()
                        + " is not one this agent takes (" + accepted + ")");
            }
        }
        if (message.taskId() != null && !message.taskId().isEmpty()) {
            LiveTask task = liveTask(principal, message.taskId())
                    .filter(t -> message.contextId() == null || message.contextId().isEmpty()
                            || message.contextId().equals(t.contextId()))
                    .orElseThrow(() -> notFound(message.taskId()));
            Task before = task.snapshot();
            if (before.status().state().terminal()) {
                throw new A2aException(A2aError.UNSUPPORTED_OPERATION, "task " + task.id() + " is "
                        + before.status().state().wireName() + ": a task in a final state takes no further message");
            }
            Message placed = message.inTask(task.id(), task.contextId());
            Turn turn = new Turn(this, task, false, false);
            LiveTask.Subscription subscription = task.begin(turn, placed);
            if (subscription == null) {
                throw new A2aException(A2aError.UNSUPPORTED_OPERATION, "task " + task.id() + " is handling a message"
                        + " already: send the next one once it asks for input");
            }
            inlinePush(task, request);
            start(turn, new RequestContext(placed, task.id(), task.contextId(), before, principal));
            return new Started(turn, subscription);
        }
        String id = UUID.randomUUID().toString();
        String contextId = message.contextId() == null || message.contextId().isEmpty()
                ? UUID.randomUUID().toString() : message.contextId();
        Message placed = message.inTask(id, contextId);
        LiveTask task = new LiveTask(new Task(id, contextId, TaskStatus.of(TaskState.SUBMITTED), null, List.of(), null),
                principal, maxHistory);
        Turn turn = new Turn(this, task, !commitNow, commitNow);
        LiveTask.Subscription subscription = task.begin(turn, placed);
        try {
            inlinePush(task, request);
        } catch (A2aException e) {
            task.end(turn);
            throw e;
        }
        if (commitNow) {
            commit(task);
        }
        start(turn, new RequestContext(placed, id, contextId, null, principal));
        return new Started(turn, subscription);
    }

    /** The push config sent with the message, set on the task before its executor starts (so it misses nothing). */
    private void inlinePush(LiveTask task, SendMessageRequest request) {
        TaskPushNotificationConfig config = request.configuration() == null ? null
                : request.configuration().taskPushNotificationConfig();
        if (config == null) {
            return;
        }
        requirePush();
        if (!task.putPush(push.check(config, task.id()), maxPushConfigs)) {
            throw invalid("task " + task.id() + " has " + maxPushConfigs + " push configs, the most it takes: delete one first");
        }
    }

    /** The message, checked as the specification requires: an id, a role, at least one part of exactly one content. */
    private static Message checked(Message message) {
        if (message == null) {
            throw invalid("message: required");
        }
        if (message.messageId() == null || message.messageId().isEmpty()) {
            throw invalid("message.messageId: required");
        }
        if (message.role() == null || message.role() == Role.UNSPECIFIED) {
            throw invalid("message.role: required (ROLE_USER)");
        }
        if (message.parts() == null || message.parts().isEmpty()) {
            throw invalid("message.parts: at least one part is required");
        }
        for (int i = 0; i < message.parts().size(); i++) {
            Part part = message.parts().get(i);
            if (part == null || part.contentCount() != 1) {
                throw invalid("message.parts[" + i + "]: exactly one of text, raw, url or data is required");
            }
        }
        return message;
    }

    private void start(Turn turn, RequestContext context) {
        running.add(turn);
        Thread thread = Thread.ofVirtual().name("a2a-task-" + turn.taskId()).unstarted(() -> {
            Throwable failure = null;
            try {
                executor.execute(context, new TaskUpdater(turn));
            } catch (Throwable t) {
                failure = t;
                if (!(t instanceof A2aException) && !(t instanceof InterruptedException)) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "task " + turn.taskId() + ": the executor failed", t);
                }
            } finally {
                running.remove(turn);
                turn.ended(failure);
            }
        });
        turn.worker(thread);
        thread.start();
    }

    // --- what turns report ---

    /** A new task's first report: from now on it is found (and kept, once {@link #save}d). */
    boolean register(LiveTask task) {
        return live.putIfAbsent(task.id(), task) == null;
    }

    /** A task kept from the start (the client did not wait for it). */
    void commit(LiveTask task) {
        if (register(task)) {
            save(task);
        }
    }

    /** An event applied: queued for the task's webhooks (no I/O here: the caller holds its turn's lock). */
    void applied(LiveTask task, StreamResponse event) {
        if (push != null) {
            push.deliver(task, event);
        }
    }

    void turnEnded(LiveTask task) {
        if (live.get(task.id()) != task) {
            return;     // never committed (answered by a message, or failed first)
        }
        save(task);
        if (task.state().terminal()) {
            live.remove(task.id(), task);
        }
    }

    void save(LiveTask task) {
        try {
            store.put(task.principal(), task.snapshot());
            if (task.pushUnsaved()) {
                keepPush(task);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "task " + task.id() + " could not be stored: " + e.getMessage());
        }
    }

    // --- reading ---

    private Optional<LiveTask> liveTask(String principal, String id) {
        LiveTask held = live.get(id);
        if (held != null) {
            return held.principal().equals(principal) ? Optional.of(held) : Optional.empty();
        }
        Optional<Task> stored = store.get(principal, id);
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        LiveTask loaded = new LiveTask(stored.get(), principal, maxHistory);
        if (push != null) {
            for (TaskPushNotificationConfig config : store.pushConfigs(principal, id)) {
                loaded.putPush(config, maxPushConfigs);
            }
        }
        if (stored.get().status().state().terminal()) {
            return Optional.of(loaded);
        }
        LiveTask raced = live.putIfAbsent(id, loaded);
        return Optional.of(raced != null ? raced : loaded);
    }

    private Optional<Task> task(String principal, String id) {
        LiveTask held = live.get(id);
        if (held != null) {
            return held.principal().equals(principal) ? Optional.of(held.snapshot()) : Optional.empty();
        }
        return store.get(principal, id);
    }

    Task get(String principal, String id, Integer historyLength) {
        checkHistoryLength(historyLength);
        return withHistory(task(principal, id).orElseThrow(() -> notFound(id)), historyLength);
    }

    static void checkHistoryLength(Integer historyLength) {
        if (historyLength != null && historyLength < 0) {
            throw invalid("historyLength: must be at least 0, got " + historyLength);
        }
    }

    /** The task with at most {@code historyLength} recent messages (all for null, none for 0). */
    static Task withHistory(Task task, Integer historyLength) {
        if (historyLength == null) {
            return task;
        }
        if (historyLength == 0 || task.history() == null) {
            return task.withHistory(null);
        }
        List<Message> history = task.history();
        return task.withHistory(history.size() <= historyLength ? history
                : List.copyOf(history.subList(history.size() - historyLength, history.size())));
    }

    ListTasksResponse list(String principal, ListTasksRequest request) {
        int pageSize = request.pageSize() == null || request.pageSize() == 0 ? DEFAULT_PAGE_SIZE : request.pageSize();
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw invalid("pageSize: must be 1 to " + MAX_PAGE_SIZE + ", got " + pageSize);
        }
        checkHistoryLength(request.historyLength());
        Instant after = null;
        if (request.statusTimestampAfter() != null && !request.statusTimestampAfter().isEmpty()) {
            try {
                after = Instant.parse(request.statusTimestampAfter());
            } catch (DateTimeParseException e) {
                throw invalid("statusTimestampAfter: not an ISO 8601 instant: \"" + request.statusTimestampAfter() + "\"");
            }
        }
        Map<String, Task> all = new LinkedHashMap<>();
        for (Task stored : store.list(principal)) {
            all.put(stored.id(), stored);
        }
        for (LiveTask held : live.values()) {
            if (held.principal().equals(principal) && all.containsKey(held.id())) {
                all.put(held.id(), held.snapshot());
            }
        }
        List<Task> matching = new ArrayList<>();
        for (Task task : all.values()) {
            if (request.contextId() != null && !request.contextId().isEmpty() && !request.contextId().equals(task.contextId())) {
                continue;
            }
            if (request.status() != null && request.status() != TaskState.UNSPECIFIED
                    && request.status() != task.status().state()) {
                continue;
            }
            if (after != null && !Instant.parse(task.status().timestamp()).isAfter(after)) {
                continue;
            }
            matching.add(task);
        }
        Comparator<Task> newestFirst = Comparator.comparing((Task t) -> t.status().timestamp()).reversed()
                .thenComparing(Task::id);
        matching.sort(newestFirst);
        int start = 0;
        if (request.pageToken() != null && !request.pageToken().isEmpty()) {
            String[] cursor = cursor(request.pageToken());
            Task mark = new Task(cursor[1], null, new TaskStatus(TaskState.UNSPECIFIED, null, cursor[0]), null, null, null);
            while (start < matching.size() && newestFirst.compare(matching.get(start), mark) <= 0) {
                start++;
            }
        }
        int end = Math.min(matching.size(), start + pageSize);
        List<Task> page = new ArrayList<>();
        for (Task task : matching.subList(start, end)) {
            Task shown = withHistory(task, request.historyLength());
            page.add(Boolean.TRUE.equals(request.includeArtifacts())
                    ? shown.withArtifacts(shown.artifacts() == null ? List.of() : shown.artifacts())
                    : shown.withArtifacts(null));
        }
        String next = end < matching.size() ? token(matching.get(end - 1)) : "";
        return new ListTasksResponse(List.copyOf(page), next, pageSize, matching.size());
    }

    private static String token(Task last) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((last.status().timestamp() + "|" + last.id())
                .getBytes(StandardCharsets.UTF_8));
    }

    private static String[] cursor(String token) {
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            int bar = decoded.indexOf('|');
            if (bar > 0) {
                Instant.parse(decoded.substring(0, bar));
                return new String[] {decoded.substring(0, bar), decoded.substring(bar + 1)};
            }
        } catch (IllegalArgumentException | DateTimeParseException e) {
            // falls through to the error
        }
        throw invalid("pageToken: not a token this server gave");
    }

    // --- canceling and subscribing ---

    Task cancel(String principal, String id) {
        LiveTask task = liveTask(principal, id).orElseThrow(() -> notFound(id));
        if (task.state().terminal()) {
            throw new A2aException(A2aError.TASK_NOT_CANCELABLE, "task " + id + " is " + task.state().wireName()
                    + ": it cannot be canceled");
        }
        Turn running = task.turn();
        Turn reporting = running != null ? running : new Turn(this, task, false, false);
        Task before = task.snapshot();
        Message last = before.history() == null || before.history().isEmpty() ? Message.agentText("cancel")
                : before.history().get(before.history().size() - 1);
        try {
            executor.cancel(new RequestContext(last, id, task.contextId(), before, principal), new TaskUpdater(reporting));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "task " + id + ": the executor's cancel failed", e);
        }
        try {
            if (!task.awaitTerminal(cancelWait.toMillis()) && running != null) {
                running.interrupt();
                task.awaitTerminal(cancelWait.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!task.state().terminal()) {
            reporting.emit(new TaskStatusUpdateEvent(id, task.contextId(), TaskStatus.of(TaskState.CANCELED), null));
        }
        save(task);
        if (task.turn() == null) {
            live.remove(id, task);
        }
        return task.snapshot();
    }

    LiveTask subscribable(String principal, String id) {
        LiveTask task = liveTask(principal, id).orElseThrow(() -> notFound(id));
        if (task.state().terminal()) {
            throw new A2aException(A2aError.UNSUPPORTED_OPERATION, "task " + id + " is " + task.state().wireName()
                    + ": a task in a final state has nothing more to stream");
        }
        return task;
    }

    // --- push configs ---

    TaskPushNotificationConfig putPush(String principal, String taskId, TaskPushNotificationConfig config) {
        requirePush();
        LiveTask task = liveTask(principal, taskId).orElseThrow(() -> notFound(taskId));
        TaskPushNotificationConfig checked = push.check(config, taskId);
        if (!task.putPush(checked, maxPushConfigs)) {
            throw invalid("task " + taskId + " has " + maxPushConfigs + " push configs, the most it takes: delete one first");
        }
        if (task.state().terminal()) {
            live.putIfAbsent(task.id(), task);      // held so that its configs can be read back
        }
        keepPush(task);
        return checked;
    }

    TaskPushNotificationConfig getPush(String principal, String taskId, String id) {
        requirePush();
        LiveTask task = liveTask(principal, taskId).orElseThrow(() -> notFound(taskId));
        return task.pushConfigs().stream().filter(c -> c.id().equals(id)).findFirst()
                .orElseThrow(() -> new A2aException(A2aError.TASK_NOT_FOUND, "task " + taskId + " has no push config " + id));
    }

    List<TaskPushNotificationConfig> listPush(String principal, String taskId) {
        requirePush();
        return liveTask(principal, taskId).orElseThrow(() -> notFound(taskId)).pushConfigs();
    }

    void deletePush(String principal, String taskId, String id) {
        requirePush();
        LiveTask task = liveTask(principal, taskId).orElseThrow(() -> notFound(taskId));
        task.removePush(id);
        keepPush(task);
    }

    /** The task's push configs into the store, so that a restarted server still calls them. */
    private void keepPush(LiveTask task) {
        try {
            store.putPushConfigs(task.principal(), task.id(), task.pushConfigs());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "task " + task.id() + ": its push configs could not be stored: "
                    + e.getMessage());
        }
    }

    private void requirePush() {
        if (push == null) {
            throw new A2aException(A2aError.PUSH_NOTIFICATION_NOT_SUPPORTED, "this agent sends no push notifications");
        }
    }

    // --- shutting down ---

    /** Takes no new message, lets running turns go on for {@code grace}, then cancels the rest. */
    void shutdown(Duration grace) {
        closing = true;
        long deadline = System.nanoTime() + grace.toNanos();
        while (!running.isEmpty() && System.nanoTime() < deadline) {
            sleep();
        }
        for (Turn turn : List.copyOf(running)) {
            try {
                cancel(turn.live().principal(), turn.taskId());
            } catch (A2aException e) {
                // ended meanwhile
            }
        }
        while (!running.isEmpty()) {
            sleep();
        }
        if (push != null) {
            push.close();
        }
    }

    int runningTurns() {
        return running.size();
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the tasks end", e);
        }
    }

    static A2aException notFound(String id) {
        return new A2aException(A2aError.TASK_NOT_FOUND, "no task " + id);
    }

    static A2aException invalid(String message) {
        return new A2aException(A2aError.INVALID_PARAMS, message);
    }
}
