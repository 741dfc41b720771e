package dev.bellows.a2a.server;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.TaskState;
import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.SessionStore;
import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * A Bellows agent as an A2A executor: each task is a run of the agent in the conversation of
 * its context (a session, in the session store when one is given), so a new task with the same
 * {@code contextId} continues the conversation.
 * <ul>
 *   <li>{@code TASK_STATE_WORKING} once the run starts; the answer streams as chunks of the
 *       artifact {@code answer} as the model writes it (a chunk without {@code append} starts it
 *       afresh, when a retry or a new iteration voids what came before), and the last chunk
 *       holds the whole answer, with a data part too when the answer is JSON (a typed result);</li>
 *   <li>{@code TASK_STATE_INPUT_REQUIRED} while calls wait for approval: the status message
 *       has a data part {@code {"waiting": [{"id", "tool", "arguments"}]}} and a text part
 *       asking; the task's next message decides (a data part {@code {"approve": [ids], "deny":
 *       [{"id", "reason"}]}}, or the text {@code approve} / {@code deny REASON} for one call),
 *       and the run goes on;</li>
 *   <li>{@code TASK_STATE_COMPLETED}, {@code TASK_STATE_FAILED} (max iterations, circuit
 *       breaker, error: the reason in the status message) or {@code TASK_STATE_CANCELED}
 *       (CancelTask cancels the run: the model request and the tools in flight).</li>
 * </ul>
 * Thread-safe.
 */
public final class BellowsExecutor implements A2aExecutor {

    /** The id of the artifact that holds the answer. */
    public static final String ANSWER = "answer";

    private final Agent agent;
    /** How the agent's waiting runs are carried on; null for an agent whose runs never wait. */
    private final WaitingRunAgent waits;
    private final Conversations conversations;
    private final Map<String, AgentRun> running = new ConcurrentHashMap<>();

    private BellowsExecutor(Agent agent, SessionStore store, Function<MemoryStore, ConversationMemory> memory) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.waits = agent instanceof WaitingRunAgent resumable ? resumable
                : agent instanceof DefaultAgent loop ? inSession(loop) : null;
        this.conversations = new Conversations(store, memory);
    }

    /** The agent's tasks, their conversations in memory. */
    public static BellowsExecutor of(Agent agent) {
        return of(agent, null, store -> ConversationMemory.builder().store(store).build());
    }

    /**
     * The agent's tasks, their conversations kept in {@code store} (null: in memory), each
     * conversation's memory made by {@code memory} over its store. The waiting runs of a
     * {@link DefaultAgent} (kept in the session) or of a {@link WaitingRunAgent} are
     * {@code input-required} tasks that the task's next message decides; another agent's run
     * that stops waiting makes a task no message can carry on.
     */
    public static BellowsExecutor of(Agent agent, SessionStore store, Function<MemoryStore, ConversationMemory> memory) {
        return new BellowsExecutor(agent, store, Objects.requireNonNull(memory, "memory"));
    }

    @Override
    public void execute(RequestContext context, TaskUpdater updater) throws Exception {
        try (Conversations.Lease lease = conversations.take(context.principal(), context.contextId())) {
            Session session = lease.session();
            AgentRun run;
            boolean mayWait = context.task() != null && context.task().status().state() == TaskState.INPUT_REQUIRED;
            List<WaitingCall> waiting = mayWait && waits != null ? waits.waiting(session) : List.of();
            if (!waiting.isEmpty()) {
                List<Decision> decisions = Approvals.decisions(context.message(), waiting);
                try {
                    run = waits.resume(session, decisions);
                } catch (IllegalArgumentException refused) {
                    throw new A2aException(A2aError.INVALID_PARAMS, refused.getMessage());
                }
            } else {
                if (waits != null) {
                    // the context's earlier task was left waiting: the conversation moves on without those calls
                    waits.giveUp(session, "the conversation moved on to a new task before this call was decided");
                }
                String task = task(context.message());
                if (task.isBlank()) {
                    throw new A2aException(A2aError.INVALID_PARAMS, "message.parts: no text or data to work on");
                }
                run = agent.run(task, session);
            }
            running.put(context.taskId(), run);
            try {
                updater.startWork();
                follow(run, updater);
            } finally {
                running.remove(context.taskId());
            }
        }
    }

    /** A DefaultAgent's waiting runs: kept in the session. */
    private static WaitingRunAgent inSession(DefaultAgent loop) {
        return new WaitingRunAgent() {
            @Override
            public List<WaitingCall> waiting(Session session) {
                return session.waiting();
            }

            @Override
            public AgentRun resume(Session session, List<Decision> decisions) {
                return loop.resume(session, decisions);
            }

            @Override
            public void giveUp(Session session, String reason) {
                if (!session.waiting().isEmpty()) {
                    loop.cancelWaiting(session, reason);
                }
            }

            @Override
            public AgentRun run(String task) {
                return loop.run(task);
            }

            @Override
            public AgentRun run(String task, Session session) {
                return loop.run(task, session);
            }
        };
    }

    /** The message as the run's task: its text parts, then each data part as JSON. */
    static String task(Message message) {
        List<String> pieces = new ArrayList<>();
        for (Part part : message.parts()) {
            if (part.text() != null) {
                pieces.add(part.text());
            } else if (part.data() != null) {
                pieces.add(Json.MAPPER.valueToTree(part.data()).toString());
            } else if (part.url() != null) {
                pieces.add("[file " + (part.filename() != null ? part.filename() + " " : "") + "at " + part.url() + "]");
            }
        }
        return String.join("\n\n", pieces);
    }

    /** Reports the run's answer as it streams, then its outcome. */
    private void follow(AgentRun run, TaskUpdater updater) throws InterruptedException {
        BlockingQueue<AgentEvent> events = new LinkedBlockingQueue<>();
        AgentEvent end = new LoopEvent.LoopStart("");
        run.publisher().subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(AgentEvent item) {
                events.add(item);
            }

            @Override
            public void onError(Throwable throwable) {
                events.add(end);
            }

            @Override
            public void onComplete() {
                events.add(end);
            }
        });
        boolean fresh = true;       // the next chunk starts the answer afresh
        // a secret may span two chunks: the streaming redactor holds a piece's end back while it could start one
        Secrets.Streaming secrets = Secrets.streaming();
        try {
            while (true) {
                AgentEvent event = events.take();
                if (event == end || event instanceof LoopEvent.LoopEnd) {
                    break;
                }
                switch (event) {
                    case StreamEvent.MessageContent content when !content.content().isEmpty() -> {
                        String piece = secrets.next(content.content());
                        if (!piece.isEmpty()) {
                            updater.addArtifact(ANSWER, ANSWER, List.of(Part.text(piece)), !fresh, false);
                            fresh = false;
                        }
                    }
                    case LoopEvent.IterationStart start -> {
                        fresh = true;
                        secrets = Secrets.streaming();
                    }
                    case LoopEvent.Retry retry -> {
                        fresh = true;
                        secrets = Secrets.streaming();
                    }
                    default -> { }
                }
            }
        } catch (InterruptedException e) {
            run.cancel();       // the server gave up waiting for a cancel: stop the run
            Thread.currentThread().interrupt();
        }
        AgentResult result = awaitEnd(run);
        report(result, updater);
    }

    /** The run's result, once it ended: an interrupt (the server giving up on a cancel) cancels it first. */
    private static AgentResult awaitEnd(AgentRun run) {
        boolean interrupted = Thread.interrupted();
        if (interrupted) {
            run.cancel();
        }
        while (true) {
            try {
                AgentResult result = run.await();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                return result;
            } catch (java.util.concurrent.CancellationException e) {
                Thread.interrupted();
                interrupted = true;
                run.cancel();
            }
        }
    }

    private static void report(AgentResult result, TaskUpdater updater) {
        LoopEndReason reason = result.reason();
        if (reason == LoopEndReason.INTERRUPTED) {
            updater.requiresInput(updater.newAgentMessage(Approvals.question(result.waiting())));
        } else if (reason.successful()) {
            List<Part> parts = new ArrayList<>();
            parts.add(Part.text(Secrets.redact(result.result())));
            JsonNode typed = typed(result.result());
            if (typed != null) {
                parts.add(Part.data(Json.MAPPER.convertValue(typed, Object.class)));
            }
            updater.addArtifact(ANSWER, ANSWER, parts, false, true);
            updater.complete();
        } else if (reason == LoopEndReason.CANCELLED) {
            updater.cancel();
        } else {
            updater.fail(updater.newAgentMessage(List.of(Part.text(result.result()),
                    Part.data(Map.of("reason", reason.wireName())))));
        }
    }

    /** The answer as JSON when it is an object or array (an agent with a typed result answers so), else null. */
    private static JsonNode typed(String answer) {
        String text = answer.strip();
        if (!(text.startsWith("{") || text.startsWith("["))) {
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(text);
            return node != null && node.isContainer() ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    /** Cancels the task's run (its model request and tools in flight), or the calls a waiting task left. */
    @Override
    public void cancel(RequestContext context, TaskUpdater updater) {
        AgentRun run = running.get(context.taskId());
        if (run != null) {
            run.cancel();       // its loop_end (cancelled) reports the cancellation
            return;
        }
        if (waits != null) {
            try (Conversations.Lease lease = conversations.take(context.principal(), context.contextId())) {
                waits.giveUp(lease.session(), "the task was canceled before this call was decided");
            } catch (A2aException busy) {
                // another task of the context runs: the waiting calls are given up by the next task
            }
        }
        updater.cancel();
    }
}
