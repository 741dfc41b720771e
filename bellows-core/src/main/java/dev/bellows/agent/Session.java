package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One conversation: its memory and its plan. An agent holds no conversation of its own
 * beyond a default session; give each user, chat or job its own session and one agent
 * serves them all at once.
 *
 * <pre>{@code
 * Session alice = new Session();                      // a fresh memory with its default limits
 * Session bob = new Session(ConversationMemory.builder().maxTokens(8_000).build());
 * AgentRun a = agent.run("Summarise a.txt", alice);   // both run at the same time
 * AgentRun b = agent.run("Summarise b.txt", bob);
 * }</pre>
 *
 * <p>A session takes one run at a time (the runs of a conversation follow each other);
 * starting another while one goes on is an {@link IllegalStateException}. A run that stopped
 * at calls that wait ({@code interrupted}, see {@link #waiting()}) is carried on by
 * {@link DefaultAgent#resume}; until then the session takes no new task.
 *
 * <p>When the memory keeps its turns in a {@link StoredSession}, each run is one exchange of
 * it ({@link StoredSession#beginExchange()}; a resume carries on the exchange of the run that
 * waited, {@link StoredSession#continueExchange()}, so a request answered over several runs is
 * counted once): the iterations the run adds to memory are seen
 * at once, and stored together in one transaction when the run ends, however it ends
 * (completed, failed, cancelled), after the listeners have seen {@code loop_end} (so a turn a
 * listener adds then is stored with them) and before {@link AgentRun#await()} returns. A
 * crash or {@code kill -9} during a run stores nothing of it.
 */
public final class Session {

    private final ConversationMemory memory;
    private final StoredSession stored;         // null: the session lives in this JVM only
    private final StoredSession exchanges;      // the memory's store when it is a stored session, else null
    private volatile Plan plan;
    private AgentRun current;                   // guarded by this
    /** The run that waits for decisions, or null, when not stored; guarded by this. */
    private Suspension suspension;
    /** What resuming it has done so far, when not stored; guarded by this. */
    private ResumeLog resumeLog;
    /** Where a session that is not stored also notes what resuming does (a sub-agent's: in its caller's log), or null. */
    private java.util.function.Consumer<List<ResumeLog.Entry>> journal;
    /** A stored session's waiting run as last read, and its text, so that it is read once; guarded by this. */
    private String readState;
    private Suspension read;

    /** The metadata keys of a stored session that keep who has the conversation ({@link #control()}). */
    static final String CONTROL_AGENT = "bellows.control.agent";
    static final String CONTROL_FROM = "bellows.control.history_from";
    static final String CONTROL_WAITING = "bellows.control.waiting";
    /**
     * The wait of the agent in control, when a handoff gave the conversation to an agent of a kind
     * of its own whose run stopped at a question ({@link HandedRun}), else null: when not stored.
     */
    private volatile tools.jackson.databind.JsonNode handedWait;
    /** Whether {@link #handedWait} holds a stored session's, read from its metadata. */
    private volatile boolean handedWaitRead;
    /** Who has the conversation after a handoff, when not stored; null: the agent the session is run with. */
    private volatile Control control;
    /** Whether {@link #control} holds a stored session's, read from its metadata. */
    private volatile boolean controlRead;

    /**
     * Which agent has the conversation after a handoff ({@link Handoff}), and from which turn of
     * the memory on it sees it.
     *
     * @param agent       the name of the handoff that gave it the conversation
     * @param historyFrom the index of the first turn of {@link ConversationMemory#turns()} it sees
     */
    public record Control(String agent, int historyFrom) {
        public Control {
            Objects.requireNonNull(agent, "agent");
            if (historyFrom < 0) {
                throw new IllegalArgumentException("historyFrom is a turn's index, not " + historyFrom);
            }
        }
    }

    /** The values the agents and tools of its runs share; made when first asked for, or given by the calling run. */
    private volatile SharedState state;

    /** A session with a new {@link ConversationMemory} of default limits. */
    public Session() {
        this(ConversationMemory.builder().build());
    }

    /** A session over {@code memory}, which may already hold earlier turns. */
    public Session(ConversationMemory memory) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.stored = null;
        this.exchanges = memory.store() instanceof StoredSession kept ? kept : null;
        this.plan = Plan.empty();
    }

    /**
     * A session kept in a {@link StoredSession} (from bellows-sessions-sqlite or
     * bellows-sessions-postgres), with {@code memory}'s limits: its turns are the stored ones,
     * its plan starts as the stored plan, and every new plan is stored with the next turn.
     *
     * <pre>{@code
     * try (SessionStore store = SqliteSessionStore.open(SqliteSessionStore.defaultDirectory());
     *      StoredSession stored = store.open("refactor-parser")) {
     *     ConversationMemory memory = ConversationMemory.builder().store(stored).maxTokens(100_000).build();
     *     agent.run("Go on where we stopped", new Session(memory, stored)).await();
     * }
     * }</pre>
     *
     * @throws IllegalArgumentException when {@code memory} does not keep its turns in {@code stored}
     */
    public Session(ConversationMemory memory, StoredSession stored) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.stored = Objects.requireNonNull(stored, "stored");
        if (memory.store() != stored) {
            throw new IllegalArgumentException("the memory must keep its turns in the stored session: build it with"
                    + " ConversationMemory.builder().store(stored)");
        }
        this.exchanges = stored;
        this.plan = stored.plan();
    }

    /** A session kept in {@code stored}, with a memory of default limits over it. */
    public static Session of(StoredSession stored) {
        return new Session(ConversationMemory.builder().store(stored).build(), stored);
    }

    /** The stored session's name, or empty for a session that lives in this JVM only. */
    public Optional<String> name() {
        return exchanges == null ? Optional.empty() : Optional.of(exchanges.name());
    }

    /**
     * The calls the session's last run stopped at ({@code interrupted}) and that wait for a
     * decision, in call order; empty when no run waits. {@link DefaultAgent#resume} answers them.
     */
    public synchronized List<WaitingCall> waiting() {
        Suspension waiting = suspension();
        if (waiting == null) {
            return List.of();
        }
        ResumeLog log = resumeLog();
        return waiting.waiting().stream().filter(call -> log.decision(call.id()) == null).toList();
    }

    /**
     * Whether a run of this session stopped at calls that wait and has not been carried on:
     * also when every waiting call is decided already (a resume cut short while the approved
     * calls ran), when {@link #waiting()} is empty yet the session takes no new task until the
     * run is resumed or given up.
     *
     * @throws IllegalStateException when the stored waiting run is damaged: the message says how
     */
    public synchronized boolean hasWaitingRun() {
        return suspension() != null;
    }

    /**
     * The agent a handoff gave the conversation to, which the session's next run goes to when the
     * agent it is run with can hand over to it (directly or through the agents it hands to);
     * empty until a handoff. A stored session keeps it in its metadata.
     */
    public Optional<Control> control() {
        if (exchanges == null || controlRead) {
            return Optional.ofNullable(control);
        }
        control = readControl().orElse(null);       // read once: this object writes every change
        controlRead = true;
        return Optional.ofNullable(control);
    }

    private Optional<Control> readControl() {
        java.util.Map<String, String> metadata = exchanges.metadata();
        String agent = metadata.get(CONTROL_AGENT);
        if (agent == null || agent.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Control(agent, Integer.parseInt(metadata.getOrDefault(CONTROL_FROM, "0"))));
        } catch (IllegalArgumentException e) {
            return Optional.of(new Control(agent, 0));      // a damaged index: the whole history
        }
    }

    /** Gives the conversation to {@code control}'s agent, or back to the agent the session is run with (null). */
    void control(Control control) {
        this.control = control;
        this.controlRead = true;
        if (exchanges != null) {
            exchanges.putMetadata(java.util.Map.of(CONTROL_AGENT, control == null ? "" : control.agent(),
                    CONTROL_FROM, control == null ? "0" : Integer.toString(control.historyFrom())));
        }
    }

    /**
     * What the agent in control keeps of its run that stopped waiting for an answer, when a handoff
     * gave the conversation to an agent that is not a {@link DefaultAgent} ({@link HandedRun}):
     * {@code {"handoff", "calls", "state", "notes"}}; null when none waits. A stored session keeps
     * it in its metadata (it holds no secret: {@link ResumableAgent#waitingState}).
     */
    tools.jackson.databind.JsonNode handedWait() {
        if (exchanges == null || handedWaitRead) {
            return handedWait;
        }
        String kept = exchanges.metadata().get(CONTROL_WAITING);
        tools.jackson.databind.JsonNode read = null;
        if (kept != null && !kept.isEmpty()) {
            try {
                read = dev.bellows.json.internal.Jackson.JSON.readTree(kept);
            } catch (tools.jackson.core.JacksonException e) {
                read = null;        // a damaged wait: the session goes on as if none waited
            }
        }
        handedWait = read;
        handedWaitRead = true;
        return read;
    }

    /** Keeps {@code wait} as {@link #handedWait()} (null: none waits any more). */
    void handedWait(tools.jackson.databind.JsonNode wait) {
        this.handedWait = wait;
        this.handedWaitRead = true;
        if (exchanges != null) {
            exchanges.putMetadata(java.util.Map.of(CONTROL_WAITING, wait == null ? "" : wait.toString()));
        }
    }

    /** The first turn of memory the agent in control sees: 0 until a handoff says otherwise. */
    int historyFrom() {
        return control().map(Control::historyFrom).orElse(0);
    }

    /**
     * The typed values the agents and tools of this session's runs share ({@link SharedState}):
     * a sub-agent's run shares its caller's. In this JVM only: never stored.
     */
    public SharedState state() {
        SharedState made = state;
        if (made == null) {
            synchronized (this) {
                made = state;
                if (made == null) {
                    made = new SharedState();
                    state = made;
                }
            }
        }
        return made;
    }

    /** The tree limits of the runs that run this session's runs (a sub-agent's callers'); empty for most. */
    private List<Budget> tree = List.of();

    /** A fresh session for a sub-agent's run, sharing {@code state} and the tree budgets of its caller. */
    static Session sharing(SharedState state, List<Budget> tree) {
        Session session = new Session();
        session.state = state;
        session.tree = tree;
        return session;
    }

    /** The budgets of the trees this session's runs belong to (their callers'). */
    List<Budget> tree() {
        return tree;
    }

    /** The conversation so far; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return memory;
    }

    /** The current plan: empty until the model writes one with {@code update_plan}. */
    public Plan plan() {
        return plan;
    }

    /**
     * Replaces the plan, e.g. with {@link Plan#empty()} for a new, unrelated task. A stored
     * session keeps it with its next turn.
     */
    public void plan(Plan plan) {
        this.plan = Objects.requireNonNull(plan, "plan");
        if (stored != null) {
            stored.plan(plan);
        }
    }

    /**
     * Takes {@code run} as the session's run, unless another is still going on, or a run waits
     * and this one does not resume it; a stored session opens the run's exchange, committed
     * when the run ends.
     */
    synchronized void begin(AgentRun run, boolean resuming) {
        if (current != null && !current.isDone()) {
            throw new IllegalStateException("this session is still running a task; await() or cancel() that run first,"
                    + " or give the new run a Session of its own");
        }
        if (!resuming && suspension() != null) {
            throw new IllegalStateException("a run of this session waits for decisions on its tool calls ("
                    + String.join(", ", waiting().stream().map(WaitingCall::id).toList())
                    + "): resume it (DefaultAgent.resume) before giving it a new task");
        }
        if (exchanges != null) {
            // A resume carries on the request of the run that waited: when that run stored the
            // iterations before the one that waits, its turns join that exchange, one request.
            Suspension waited = resuming ? suspension() : null;
            if (waited != null && waited.iteration() > 1) {
                exchanges.continueExchange();
            } else {
                exchanges.beginExchange();
            }
            ((RunHandle) run).ending(exchanges::commitExchange);
        }
        current = run;
    }

    /**
     * The waiting run, or null; a stored session's as the store has it now.
     *
     * @throws IllegalStateException when the stored one is damaged: the message says how
     */
    synchronized Suspension suspension() {
        if (exchanges == null) {
            return suspension;
        }
        Optional<WaitingRun> stored = exchanges.waitingRun();
        if (stored.isEmpty()) {
            return null;
        }
        String state = stored.get().state();
        if (!state.equals(readState)) {
            try {
                read = SuspensionJson.readSuspension(state);
            } catch (RuntimeException e) {
                throw damaged(e);
            }
            readState = state;
        }
        return read;
    }

    /**
     * What resuming the waiting run has done so far (empty when nothing yet).
     *
     * @throws IllegalStateException when a stored entry is damaged
     */
    synchronized ResumeLog resumeLog() {
        if (exchanges == null) {
            if (resumeLog == null) {
                resumeLog = new ResumeLog(List.of());
            }
            return resumeLog;
        }
        List<ResumeLog.Entry> entries = new java.util.ArrayList<>();
        try {
            for (String entry : exchanges.waitingRun().map(WaitingRun::log).orElse(List.of())) {
                entries.add(SuspensionJson.readLogEntry(entry));
            }
        } catch (RuntimeException e) {
            throw damaged(e);
        }
        return new ResumeLog(entries);
    }

    private IllegalStateException damaged(RuntimeException e) {
        return new IllegalStateException("the waiting run stored in session \"" + exchanges.name()
                + "\" is damaged, so it cannot be resumed: " + e.getMessage(), e);
    }

    /**
     * The session's run stops here: this waits, with an empty log (the old one is done with); a
     * stored session stores it with the run's exchange.
     */
    synchronized void suspend(Suspension waiting) {
        Objects.requireNonNull(waiting, "waiting");
        if (exchanges != null) {
            exchanges.waitingRun(SuspensionJson.write(waiting));
        } else {
            suspension = waiting;
            resumeLog = new ResumeLog(List.of());
        }
    }

    /**
     * Makes this session, one that is not stored, wait with {@code waiting} as a run that stopped
     * and was partly resumed ({@code done}), and note what resuming it does next to
     * {@code journal} too, before it goes on: a sub-agent's session rebuilt from its caller's
     * waiting run ({@link AgentTool}), whose log is kept in its caller's.
     */
    synchronized void waitFrom(Suspension waiting, List<ResumeLog.Entry> done,
                               java.util.function.Consumer<List<ResumeLog.Entry>> journal) {
        if (exchanges != null) {
            throw new IllegalStateException("a stored session keeps its own waiting run");
        }
        suspension = Objects.requireNonNull(waiting, "waiting");
        resumeLog = new ResumeLog(done);
        this.journal = journal;
    }

    /** Adds to what resuming did, kept (a stored session: stored) before the resume goes on. */
    synchronized void logResume(List<ResumeLog.Entry> entries) {
        if (exchanges != null) {
            exchanges.logWaitingRun(entries.stream().map(SuspensionJson::write).toList());
        } else {
            if (journal != null) {
                journal.accept(entries);
            }
            ResumeLog log = resumeLog();
            entries.forEach(log::add);
        }
    }

    /** The waiting run went on past its answer: nothing waits any more (stored with the exchange). */
    synchronized void resolved() {
        if (exchanges != null) {
            exchanges.waitingRun(null);
        } else {
            suspension = null;
            resumeLog = null;
        }
    }

    /**
     * Lets go of {@code run} once it has ended, so that a long-lived session does not keep its
     * last run's events (every delta of it) alive; the caller's handle still has them.
     */
    synchronized void end(AgentRun run) {
        if (current == run) {
            current = null;
        }
    }
}
