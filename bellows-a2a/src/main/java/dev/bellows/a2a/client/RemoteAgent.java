package dev.bellows.a2a.client;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.ResumableAgent;
import dev.bellows.agent.Resumption;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import java.util.Collections;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * A remote A2A agent as an {@link dev.bellows.agent.Agent Agent}: wherever a local agent goes (offered to a model with
 * {@link dev.bellows.agent.AgentTool}, run directly, handed a conversation), a remote one goes
 * too. A run sends its task as the text of a message and reports the remote task as a local run
 * does:
 *
 * <ul>
 * <li>{@code loop_start}, {@code iteration_start} 1;</li>
 * <li>each status update that says something ({@code working} with a message): a thinking block
 *     named {@code status} with the attributes {@code state} ({@code working}, ...) and
 *     {@code task} (the remote task's id);</li>
 * <li>the artifacts' chunks as message text as they arrive ({@code message_start},
 *     {@code message_content}, {@code message_end}; a chunk that does not append starts a new
 *     block);</li>
 * <li>{@code loop_end}: {@code task_completion} with the artifacts' text once the task
 *     completed; {@code ask_question} with the agent's question when it asks for input (the
 *     session's next run answers it, in the same remote task); {@code error} when it failed, was
 *     rejected or canceled (by someone else) or the agent could not be used; {@code cancelled}
 *     when the run was cancelled ({@link AgentRun#cancel()}).</li>
 * </ul>
 *
 * <p>The runs of one {@link Session} are one remote conversation (one {@code contextId});
 * {@link #run(String)} runs in the agent's own session. {@link AgentRun#cancel()} cancels the
 * remote task ({@code CancelTask}) before the run ends. The client is made when first needed
 * (the card read then), so an agent that is configured but never called costs nothing, and one
 * that could not be reached is tried again by the next run.
 *
 * <p>Thread-safe: runs of different sessions go on at the same time.
 */
public final class RemoteAgent implements ResumableAgent, AutoCloseable {

    private final String name;
    private final Supplier<A2aClient> connect;
    private final List<AgentListener> listeners;
    private final boolean interrupting;
    private final Session own = new Session();
    /** Per session: the remote conversation, and a task that waits for the session's next message. */
    private final Map<Session, Conversation> conversations = Collections.synchronizedMap(new WeakHashMap<>());
    /**
     * The same for stored sessions, by name: a server opens a thread's stored session anew for
     * each run, and its next run goes on in the same remote conversation. In this process only.
     */
    private final Map<String, Conversation> named = new java.util.concurrent.ConcurrentHashMap<>();
    private A2aClient client;   // guarded by this

    /** Where a session stands with the remote agent. */
    record Conversation(String contextId, String waitingTaskId, String question) {
    }

    private RemoteAgent(String name, Supplier<A2aClient> connect, List<AgentListener> listeners, boolean interrupting) {
        this.name = Objects.requireNonNull(name, "name");
        this.connect = Objects.requireNonNull(connect, "connect");
        this.listeners = List.copyOf(listeners);
        this.interrupting = interrupting;
    }

    /** The name of the waiting call of a remote task that asks for input ({@link #interrupting()}). */
    public static final String INPUT_CALL = "input";
    /** The server the waiting call of a remote task names: A2A. */
    public static final String SERVER = "a2a";

    /**
     * The same agent, whose runs end {@code interrupted} instead of {@code ask_question} when the
     * remote task asks for input: with one waiting call ({@link AgentResult#waiting()}), id
     * {@value #INPUT_CALL}, server {@value #SERVER}, tool the agent's name, kind
     * {@link WaitingCall.Kind#EXTERNAL}, arguments {@code {"question", "task_id", "context_id"}}:
     * all that {@link #resume} needs to carry the task on, in this process or another. For a
     * remote agent that runs inside another agent's run, whose waits make the whole run wait:
     * offered with {@link dev.bellows.agent.AgentTool#of}, its question is the calling run's
     * waiting call {@code CALLID/input} ({@link ResumableAgent}). It makes its own client (the
     * same way).
     */
    public RemoteAgent interrupting() {
        return new RemoteAgent(name, connect, listeners, true);
    }

    /** Whether its runs end interrupted when the remote task asks for input. */
    boolean interrupts() {
        return interrupting;
    }

    /**
     * Carries on a remote task that asked for input, from the waiting call a run of an
     * {@link #interrupting()} agent ended with: a {@link Decision.Respond} sends its text into the
     * task as the person's answer, and the run follows the task on from there (to its end, or
     * to its next question); a {@link Decision.Deny} cancels the remote task, and the run ends
     * {@code error} with the reason.
     *
     * @throws IllegalArgumentException when {@code waiting} is not one such call, or no decision is for it
     */
    public AgentRun resume(List<WaitingCall> waiting, List<Decision> decisions) {
        if (waiting.size() != 1 || !waiting.getFirst().id().equals(INPUT_CALL)
                || !waiting.getFirst().toolName().equals(name)) {
            throw new IllegalArgumentException("not the waiting call of a remote task of " + name + ": " + waiting);
        }
        return carryOn(waiting.getFirst().arguments(), decisions, null, null, next -> { });
    }

    /**
     * What {@link #resume(Resumption, Session)} needs of a run of an {@link #interrupting()} agent
     * that ended waiting: its waiting call's arguments, {@code {"question", "task_id",
     * "context_id"}} (ids, no secret).
     *
     * @throws IllegalArgumentException when {@code stopped} does not wait on this agent's remote task
     */
    @Override
    public JsonNode waitingState(AgentResult stopped, Session session) {
        List<WaitingCall> waiting = stopped.waiting();
        if (waiting.size() != 1 || !waiting.getFirst().id().equals(INPUT_CALL)
                || !waiting.getFirst().toolName().equals(name)) {
            throw new IllegalArgumentException("not a run of " + name + " waiting on its remote task: " + waiting);
        }
        return waiting.getFirst().arguments();
    }

    /**
     * Carries on the remote task {@code resumption}'s state names (as {@link #resume(List, List)}
     * does), exactly once: the answer's message id is {@linkplain Resumption#note noted} before
     * it is sent, and a resume cut short that noted it sends it only if the task's history does
     * not hold that message yet; else it follows the task on from where it stands.
     */
    @Override
    public AgentRun resume(Resumption resumption, Session session) {
        String sent = null;
        for (JsonNode note : resumption.notes()) {
            sent = note.path("sent").asString(sent);
        }
        return carryOn(resumption.state(), resumption.decisions(), sent == null ? resumption::note : null, sent,
                next -> remember(session, next));
    }

    /**
     * The run that answers, or declines, the question {@code asked} ({@code {"question",
     * "task_id", "context_id"}}) describes: the answer sent as the message {@code sent} when an
     * attempt cut short may have sent it, else as a fresh one, noted to {@code noting} first;
     * where the conversation stands after the run goes to {@code after}.
     */
    private AgentRun carryOn(JsonNode asked, List<Decision> decisions, java.util.function.Consumer<JsonNode> noting,
                             String sent, java.util.function.Consumer<Conversation> after) {
        String taskId = asked.path("task_id").asString("");
        if (taskId.isEmpty()) {
            throw new IllegalArgumentException("the waiting call of " + name + " names no remote task");
        }
        Decision decision = decisions.stream().filter(d -> d.callId().equals(INPUT_CALL)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no decision for the call " + INPUT_CALL));
        Conversation conversation = new Conversation(asked.path("context_id").asString(""), taskId,
                asked.path("question").asString(""));
        if (decision instanceof Decision.Deny deny) {
            return RemoteRun.declined(this, conversation, deny.reason(), listeners);
        }
        if (!(decision instanceof Decision.Respond respond)) {
            throw new IllegalArgumentException("the remote agent " + name + " asked a question: answer it"
                    + " (Decision.respond) or deny it, not " + decision);
        }
        String messageId = sent != null ? sent : java.util.UUID.randomUUID().toString();
        if (noting != null) {
            noting.accept(JsonNodeFactory.instance.objectNode().put("sent", messageId).put("task_id", taskId));
        }
        return new RemoteRun(this, respond.result(), conversation, after, listeners, messageId, sent != null);
    }

    /**
     * The agent {@code name} that {@code connect} makes a client of, called when a run first needs
     * it (and again after it failed). The clients it made are closed by {@link #close()}.
     *
     * @param listeners see every event of every run, on the run's thread, as it happens
     */
    public static RemoteAgent of(String name, Supplier<A2aClient> connect, List<AgentListener> listeners) {
        return new RemoteAgent(name, connect, listeners, false);
    }

    /** The agent {@code config} names, its headers resolved from the environment when it is first used. */
    public static RemoteAgent of(RemoteAgentConfig config) {
        return of(config.name(), () -> config.client(System::getenv).connect(), List.of());
    }

    /** The agent's name (the configuration's, not the card's). */
    public String name() {
        return name;
    }

    /**
     * What the agent does, from its card (its description and skills), for a model that may call
     * it; reads the card if no run has yet.
     *
     * @throws A2aClientException the card could not be read
     * @throws IllegalArgumentException a header refers to a variable that is not set
     */
    public String description() {
        return A2aAgentTool.describe(client());
    }

    /**
     * The client, made on first use: outside the lock (reading the card is a request), so two
     * first runs may both read it, and the second one's client is closed.
     */
    A2aClient client() {
        synchronized (this) {
            if (client != null) {
                return client;
            }
        }
        A2aClient made = connect.get();
        synchronized (this) {
            if (client == null) {
                client = made;
                return made;
            }
        }
        made.close();
        return client();
    }

    /** Runs {@code task} in the agent's own session: each run continues the one before. */
    @Override
    public AgentRun run(String task) {
        return run(task, own);
    }

    /**
     * Sends {@code task} to the remote agent in {@code session}'s conversation: the answer to the
     * question its last run ended with, if it ended asking, else a new task in the same context.
     */
    @Override
    public AgentRun run(String task, Session session) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(session, "session");
        return new RemoteRun(this, task, conversation(session), next -> remember(session, next), listeners);
    }

    /** Where {@code session} stands with the remote agent, or null before its first run. */
    private Conversation conversation(Session session) {
        return session.name().map(named::get).orElseGet(() -> conversations.get(session));
    }

    /** Keeps where {@code session} stands after a run ({@code next}; null: nowhere, the next run starts anew). */
    private void remember(Session session, Conversation next) {
        java.util.Optional<String> name = session.name();
        if (next == null) {
            name.ifPresentOrElse(named::remove, () -> conversations.remove(session));
        } else if (name.isPresent()) {
            named.put(name.get(), next);
        } else {
            conversations.put(session, next);
        }
    }

    /**
     * The remote task {@code session}'s last run left asking for input ({@code ask_question}),
     * which the session's next run answers; empty when none asks.
     */
    public java.util.Optional<RemoteWait> pendingInput(Session session) {
        Conversation conversation = conversation(session);
        if (conversation == null || conversation.waitingTaskId() == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new RemoteWait(name, conversation.waitingTaskId(), conversation.contextId(),
                conversation.question()));
    }

    /** Closes the client, if one was made. */
    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public String toString() {
        return "RemoteAgent[" + name + "]";
    }
}
