package dev.bellows.a2a.client;

import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Artifact;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.SendMessageConfiguration;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.TaskStatus;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.WaitingCall;
import dev.bellows.tool.ToolCall;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * One run of a {@link RemoteAgent}: one message to the remote agent, followed on a virtual
 * thread of its own, its task's events reported as agent events (see {@link RemoteAgent}).
 */
final class RemoteRun implements AgentRun {

    private static final System.Logger LOG = System.getLogger(RemoteRun.class.getName());
    /** The longest pause between two looks at a task of an agent that does not stream. */
    private static final Duration MAX_POLL = Duration.ofSeconds(1);

    private final RemoteAgent agent;
    private final String task;
    private final RemoteAgent.Conversation before;
    private final Consumer<RemoteAgent.Conversation> after;
    private final List<AgentListener> listeners;
    /** The id of the message to send (an answer's, noted before it is sent), or null for a fresh one. */
    private final String messageId;
    /** Whether an attempt cut short may have sent the message already: the task is looked at first. */
    private final boolean maybeSent;
    private final Thread thread;

    private final List<AgentEvent> log = new ArrayList<>();    // guarded by this
    private AgentResult result;                                 // guarded by this
    private volatile boolean cancelled;
    private volatile TaskEvents stream;
    private volatile String taskId;

    // the follower's own, read and written by its thread alone
    private int chunk;
    private StringBuilder open;         // the message block being streamed, null when none is
    private final Map<String, StringBuilder> artifacts = new LinkedHashMap<>();
    private TaskState state;
    private Message statusMessage;
    private String contextId;
    private String directText;

    RemoteRun(RemoteAgent agent, String task, RemoteAgent.Conversation before,
              Consumer<RemoteAgent.Conversation> after, List<AgentListener> listeners) {
        this(agent, task, before, after, listeners, null, false);
    }

    /**
     * A run that sends {@code task} as the message {@code messageId}; when {@code maybeSent}, it
     * sends it only if the waiting task's history does not hold that message yet, and otherwise
     * follows the task on from where it is.
     */
    RemoteRun(RemoteAgent agent, String task, RemoteAgent.Conversation before,
              Consumer<RemoteAgent.Conversation> after, List<AgentListener> listeners, String messageId,
              boolean maybeSent) {
        this.agent = agent;
        this.task = task;
        this.before = before;
        this.after = after;
        this.listeners = listeners;
        this.messageId = messageId;
        this.maybeSent = maybeSent;
        this.contextId = before == null ? null : before.contextId();
        this.thread = Thread.ofVirtual().name("bellows-a2a-" + agent.name()).start(this::follow);
    }

    private void follow() {
        emit(new LoopEvent.LoopStart(task));
        emit(new LoopEvent.IterationStart(1));
        LoopEvent.LoopEnd end;
        try {
            end = work();
        } catch (A2aException e) {
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the remote agent " + agent.name() + " refused the task: "
                    + e.getMessage());
        } catch (RuntimeException e) {
            end = cancelled ? cancelledEnd() : new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the remote agent "
                    + agent.name() + " could not be used: " + e.getMessage());
            LOG.log(System.Logger.Level.DEBUG, "the run of the remote agent " + agent.name() + " failed", e);
        }
        closeMessage();
        remember(end.reason(), end.result());
        emit(end);
        synchronized (this) {
            result = end.reason() == LoopEndReason.INTERRUPTED
                    ? new AgentResult(end.reason(), end.result(), List.of(waitingCall(end.result())))
                    : new AgentResult(end.reason(), end.result());
            notifyAll();
        }
    }

    /** The call an interrupting agent's run waits on: everything {@link RemoteAgent#resume} needs. */
    private WaitingCall waitingCall(String question) {
        ObjectNode arguments = JsonNodeFactory.instance.objectNode().put("question", question)
                .put("task_id", taskId == null ? "" : taskId).put("context_id", contextId == null ? "" : contextId);
        return new WaitingCall(RemoteAgent.INPUT_CALL, new ToolCall(RemoteAgent.SERVER, agent.name(), arguments),
                WaitingCall.Kind.EXTERNAL);
    }

    /**
     * A run that gives a remote task's question up: the task is cancelled, and the run ends
     * {@code error} with the reason.
     */
    static RemoteRun declined(RemoteAgent agent, RemoteAgent.Conversation asked, String reason,
                              List<AgentListener> listeners) {
        return new RemoteRun(agent, asked, reason, listeners);
    }

    private RemoteRun(RemoteAgent agent, RemoteAgent.Conversation asked, String reason, List<AgentListener> listeners) {
        this.agent = agent;
        this.task = "(declined) " + reason;
        this.before = asked;
        this.after = next -> { };
        this.listeners = listeners;
        this.messageId = null;
        this.maybeSent = false;
        this.contextId = asked.contextId();
        this.taskId = asked.waitingTaskId();
        this.thread = Thread.ofVirtual().name("bellows-a2a-" + agent.name()).start(() -> {
            emit(new LoopEvent.LoopStart(task));
            try {
                cancelRemote(agent.client());
            } catch (RuntimeException e) {
                // the agent cannot be reached: its task is given up all the same
                LOG.log(System.Logger.Level.DEBUG, "cancelling a declined task of " + agent.name() + " failed", e);
            }
            LoopEvent.LoopEnd end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the question of the remote agent "
                    + agent.name() + " was declined" + (reason.isBlank() ? "" : ": " + reason)
                    + "; its task " + asked.waitingTaskId() + " was cancelled");
            emit(end);
            synchronized (this) {
                result = new AgentResult(end.reason(), end.result());
                notifyAll();
            }
        });
    }

    /** Sends the task and follows it to its end (or pause); the loop_end it came to. */
    private LoopEvent.LoopEnd work() {
        A2aClient client = agent.client();
        if (maybeSent && received(client.getTask(before.waitingTaskId()))) {
            return cancelled ? cancelRemote(client) : ending();
        }
        Message message = messageId == null ? Message.of(Role.USER, List.of(Part.text(task)))
                : new Message(messageId, null, null, Role.USER, List.of(Part.text(task)), null, null, null);
        if (before != null) {
            message = message.inTask(before.waitingTaskId(), before.contextId() == null || before.contextId().isEmpty()
                    ? null : before.contextId());
        }
        if (client.streams()) {
            try (TaskEvents events = client.stream(message)) {
                stream = events;
                for (StreamResponse event : events) {
                    see(event);
                    if (cancelled) {
                        break;
                    }
                }
            } catch (A2aClientException e) {
                if (!cancelled) {
                    throw e;
                }
            }
            if (cancelled) {
                return cancelRemote(client);
            }
            if (directText == null && (state == null || !state.terminal() && !state.interrupted())) {
                // the stream ended before the task did: ask where it stands
                if (taskId == null) {
                    throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, "its stream ended before it sent"
                            + " a task");
                }
                seeTask(client.getTask(taskId));
            }
        } else {
            poll(client, client.send(new SendMessageRequest(null, message,
                    new SendMessageConfiguration(null, null, 0, true), null)));
            if (cancelled) {
                return cancelRemote(client);
            }
        }
        return ending();
    }

    /**
     * Whether {@code now}, the waiting task as it stands, got the message already (an attempt cut
     * short sent it): then it is followed on from there by looking at it, and true.
     */
    private boolean received(Task now) {
        if (now.history() == null || now.history().stream().noneMatch(m -> messageId.equals(m.messageId()))) {
            return false;
        }
        LOG.log(System.Logger.Level.DEBUG, "the remote task " + now.id() + " of " + agent.name()
                + " has the answer already: followed, not sent again");
        watch(agent.client(), now);
        return true;
    }

    /** Follows the task of an agent that does not stream by asking for it, less and less often. */
    private void poll(A2aClient client, SendMessageResponse response) {
        if (response.message() != null) {
            seeDirect(response.message());
            return;
        }
        watch(client, response.task());
    }

    /** Follows {@code task} to its end (or its next question) by asking for it, less and less often. */
    private void watch(A2aClient client, Task task) {
        seeTask(task);
        long pause = 50;
        while (!cancelled && !state.terminal() && !state.interrupted()) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;     // cancel() interrupts a run that waits here
            }
            pause = Math.min(MAX_POLL.toMillis(), pause * 2);
            seeTask(client.getTask(taskId, 0));
        }
    }

    private void see(StreamResponse event) {
        if (event.task() != null) {
            seeTask(event.task());
        } else if (event.message() != null) {
            seeDirect(event.message());
        } else if (event.statusUpdate() != null) {
            taskId = event.statusUpdate().taskId();
            contextId = event.statusUpdate().contextId();
            seeStatus(event.statusUpdate().status());
        } else if (event.artifactUpdate() != null) {
            taskId = event.artifactUpdate().taskId();
            contextId = event.artifactUpdate().contextId();
            Artifact artifact = event.artifactUpdate().artifact();
            String key = artifact.artifactId() == null ? "" : artifact.artifactId();
            String text = A2aAgentTool.text(artifact.parts());
            boolean append = Boolean.TRUE.equals(event.artifactUpdate().append()) && artifacts.containsKey(key);
            if (append) {
                artifacts.get(key).append(text);
            } else {
                artifacts.put(key, new StringBuilder(text));
                closeMessage();     // a chunk that does not append starts the artifact afresh
            }
            message(text);
        }
    }

    private void seeTask(Task task) {
        taskId = task.id();
        contextId = task.contextId();
        if (task.artifacts() != null && !task.artifacts().isEmpty() && artifacts.isEmpty()) {
            for (Artifact artifact : task.artifacts()) {   // an agent that sent them whole: shown once
                String text = A2aAgentTool.text(artifact.parts());
                artifacts.put(artifact.artifactId() == null ? "" : artifact.artifactId(), new StringBuilder(text));
                message(text);
            }
        }
        seeStatus(task.status());
    }

    private void seeDirect(Message message) {
        directText = A2aAgentTool.text(message.parts());
        if (message.contextId() != null) {
            contextId = message.contextId();
        }
        message(directText);
        state = TaskState.COMPLETED;
    }

    /** A status that says something in words: a thinking block named {@code status}. */
    private void seeStatus(TaskStatus status) {
        if (status == null || status.state() == null) {
            return;
        }
        boolean changed = status.state() != state;
        state = status.state();
        statusMessage = status.message();
        String said = statusMessage == null ? "" : A2aAgentTool.text(statusMessage.parts());
        if (!said.isEmpty() && (changed || !state.terminal()) && !state.interrupted()) {
            closeMessage();
            emit(new StreamEvent.ThinkingStart(chunk, "status", taskId == null
                    ? Map.of("state", state.name().toLowerCase(Locale.ROOT))
                    : Map.of("state", state.name().toLowerCase(Locale.ROOT), "task", taskId)));
            emit(new StreamEvent.ThinkingContent(chunk, said));
            emit(new StreamEvent.ThinkingEnd(chunk, said));
        }
        chunk++;
    }

    private void message(String text) {
        if (text.isEmpty()) {
            return;
        }
        if (open == null) {
            open = new StringBuilder();
            emit(new StreamEvent.MessageStart(chunk));
        }
        open.append(text);
        emit(new StreamEvent.MessageContent(chunk, text));
        chunk++;
    }

    private void closeMessage() {
        if (open != null) {
            emit(new StreamEvent.MessageEnd(chunk, open.toString()));
            open = null;
        }
    }

    /** The loop_end the remote task's state comes to. */
    private LoopEvent.LoopEnd ending() {
        String said = statusMessage == null ? "" : A2aAgentTool.text(statusMessage.parts());
        if (state == TaskState.COMPLETED) {
            String text = directText != null ? directText : artifacts.values().stream().map(StringBuilder::toString)
                    .filter(s -> !s.isEmpty()).collect(Collectors.joining("\n"));
            return new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, text.isEmpty() ? said : text);
        }
        if (state != null && state.interrupted()) {
            return new LoopEvent.LoopEnd(agent.interrupts() ? LoopEndReason.INTERRUPTED : LoopEndReason.ASK_QUESTION,
                    said.isEmpty()
                    ? "(the remote agent " + agent.name() + " asks for " + (state == TaskState.AUTH_REQUIRED
                    ? "authentication" : "input") + " without a word)" : said);
        }
        return new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the remote agent " + agent.name() + "'s task "
                + (state == null ? "did not finish" : "ended " + state.name().toLowerCase(Locale.ROOT))
                + (said.isEmpty() ? "" : ": " + said));
    }

    /** Cancels the remote task, with the thread's interrupt held back for the request. */
    private LoopEvent.LoopEnd cancelRemote(A2aClient client) {
        String id = taskId;
        if (id != null) {
            boolean interrupted = Thread.interrupted();
            try {
                client.cancelTask(id);
            } catch (RuntimeException e) {
                // it ended already, or the agent cannot be reached: nothing more to do for it
                LOG.log(System.Logger.Level.DEBUG, "cancelling the remote task " + id + " failed", e);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        return cancelledEnd();
    }

    private LoopEvent.LoopEnd cancelledEnd() {
        return new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled"
                + (taskId == null ? "" : ": the remote task " + taskId + " was cancelled too"));
    }

    /** Where the session stands for its next run: the context, and the task that asks, if one does. */
    private void remember(LoopEndReason reason, String question) {
        if (contextId == null || contextId.isEmpty()) {
            return;
        }
        boolean asks = reason == LoopEndReason.ASK_QUESTION;
        after.accept(new RemoteAgent.Conversation(contextId, asks ? taskId : null, asks ? question : null));
    }

    private void emit(AgentEvent event) {
        for (AgentListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "an agent listener threw; the others go on", e);
            }
        }
        synchronized (this) {
            log.add(event);
            notifyAll();
        }
    }

    /**
     * Cancels the remote task: a stream that already named it is closed and the task cancelled
     * (CancelTask) before the run ends {@code cancelled}; one that has not named it yet is
     * cancelled as soon as it does.
     */
    @Override
    public void cancel() {
        if (isDone()) {
            return;
        }
        cancelled = true;
        TaskEvents events = stream;
        if (events != null && taskId != null) {
            events.close();
        } else if (events == null && taskId != null) {
            thread.interrupt();     // a task that does not stream, waited for between two looks
        }
    }

    @Override
    public synchronized boolean isDone() {
        return result != null;
    }

    @Override
    public synchronized AgentResult await() {
        while (result == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for the remote agent " + agent.name());
            }
        }
        return result;
    }

    @Override
    public synchronized Optional<AgentResult> await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (result == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return Optional.of(result);
    }

    @Override
    public Iterator<AgentEvent> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                synchronized (RemoteRun.this) {
                    while (next >= log.size() && result == null) {
                        try {
                            RemoteRun.this.wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new CancellationException("interrupted while waiting for the remote agent "
                                    + agent.name());
                        }
                    }
                    return next < log.size();
                }
            }

            @Override
            public AgentEvent next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the run has ended: loop_end was the last event");
                }
                synchronized (RemoteRun.this) {
                    return log.get(next++);
                }
            }
        };
    }

    @Override
    public Stream<AgentEvent> events() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    @Override
    public Flow.Publisher<AgentEvent> publisher() {
        return subscriber -> {
            // each subscriber's events handed over on a virtual thread, never the common pool
            SubmissionPublisher<AgentEvent> publisher = new SubmissionPublisher<>(
                    command -> Thread.ofVirtual().start(command), Flow.defaultBufferSize());
            publisher.subscribe(subscriber);
            Thread.ofVirtual().start(() -> {
                try (publisher) {
                    for (AgentEvent event : this) {
                        publisher.submit(event);
                    }
                }
            });
        };
    }

    @Override
    public String toString() {
        return "RemoteRun[" + agent.name() + (taskId == null ? "" : ", task " + taskId) + "]";
    }
}
