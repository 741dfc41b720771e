package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.plan.Plan;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bellows run --session NAME}: the run continues a stored conversation, kept where
 * {@link SessionStoreLocation} says (SQLite in the data directory, or PostgreSQL). The session is
 * the agent's memory store (each run's turns written in one transaction when it ends), its
 * plan is given back to the agent and every {@code plan_update} kept with the next turn, and
 * the model and tool mode the run used are recorded. Closing writes a plan no turn followed
 * and releases the session's lock.
 */
final class RunSession implements AutoCloseable {

    private final SessionStore store;
    private final StoredSession session;
    private final dev.bellows.agent.internal.SubAgentTrail subAgents;

    private RunSession(SessionStore store, StoredSession session) {
        this.store = store;
        this.session = session;
        this.subAgents = new dev.bellows.agent.internal.SubAgentTrail(session);
    }

    /**
     * Opens (creating when new) the session where {@code location} says.
     *
     * @throws UsageException for a bad name, a store that cannot be used (a database server that
     *                        cannot be reached among them), or a session open in another
     *                        process: nothing is sent to a model then
     */
    static RunSession open(String name, SessionStoreLocation location) throws UsageException {
        try {
            SessionNames.check(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--session: " + e.getMessage());
        }
        SessionStore store;
        try {
            store = location.open();
        } catch (SessionStoreException e) {
            throw UsageException.storeFault(location.source() + ": " + e.getMessage());
        }
        try {
            return new RunSession(store, store.open(name));
        } catch (SessionStoreException e) {
            store.close();
            // A usage error never repeats an option's value, and hiding the name inside the
            // store's words would garble them (a lock path holding it): say "the session".
            throw UsageException.storeFault("--session: " + location.explain(e).replace("session \"" + name + "\"", "the session")
                    .replaceAll(" \\(its lock: [^)]*\\)", ""));
        }
    }

    /**
     * The settings a stored session last ran with (model, tool mode), read without opening or
     * locking it: {@code run --session NAME} falls back on them when none is configured, so a
     * session continues with the model it started with. Empty for a new session.
     *
     * @throws UsageException for a bad name or a store that cannot be read
     */
    static Map<String, String> storedSettings(String name, SessionStoreLocation location) throws UsageException {
        try {
            SessionNames.check(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--session: " + e.getMessage());
        }
        if (!location.mayHoldSessions()) {
            return Map.of();
        }
        try (SessionStore store = location.open()) {
            return store.find(name).map(SessionInfo::metadata).orElse(Map.of());
        } catch (SessionStoreException e) {
            throw UsageException.storeFault(location.source() + ": " + location.explain(e));
        }
    }

    StoredSession session() {
        return session;
    }

    /** The listener, plus keeping each new plan and the sub-agents' work ({@link dev.bellows.agent.internal.SubAgentTrail}) for the session. */
    AgentListener keepingPlans(AgentListener listener) {
        return event -> {
            if (event instanceof LoopEvent.PlanUpdate update) {
                session.plan(new Plan(update.steps()));
            }
            subAgents.onEvent(event);
            listener.onEvent(event);
        };
    }

    /** A listener that keeps the sub-agents' work for the session ({@link dev.bellows.agent.internal.SubAgentTrail}). */
    AgentListener keepingSubAgents() {
        return subAgents;
    }

    /**
     * Gives the agent the session's plan, and records what this run uses (the model, the tool
     * mode, and what {@link RememberedSettings} keeps for carrying the run on); while a run of the
     * session waits on tool calls, its settings stay as they are: a command refused because of
     * it (a new task, decisions that do not fit) changes nothing stored.
     */
    void start(Agent agent, String provider, String model, ToolMode toolMode, Map<String, String> remembered) {
        if (agent instanceof DefaultAgent defaultAgent) {
            defaultAgent.plan(session.plan());
        }
        if (session.waitingRun().isPresent()) {
            return;
        }
        Map<String, String> entries = new java.util.HashMap<>(remembered);
        entries.putAll(Map.of(StoredSession.MODEL, model,
                StoredSession.TOOL_MODE, toolMode.name().toLowerCase(Locale.ROOT), RememberedSettings.PROVIDER, provider));
        session.putMetadata(entries);
    }

    /**
     * Checks that a run of the session that waits on tool calls is carried on in the tool mode
     * it stopped in: its answer is read, its calls are named and its observation is written the
     * way of that mode, and another would run the calls and then fail to go on.
     *
     * @throws UsageException naming the flag and the waiting run's mode
     */
    void checkWaitingToolMode(ToolMode toolMode) throws UsageException {
        String waiting = session.metadata().get(StoredSession.TOOL_MODE);
        String asked = toolMode.name().toLowerCase(Locale.ROOT);
        if (waiting == null || waiting.equals(asked) || session.waitingRun().isEmpty()) {
            return;
        }
        String flag = waiting.equals("react") || asked.equals("react") ? "--agent" : "--tool-mode";
        throw new UsageException(flag + ": the run of session " + session.name() + " that waits on tool calls stopped"
                + " in the " + waiting + " tool mode, and goes on in it only (leave " + flag + " out)", true);
    }

    @Override
    public void close() {
        try {
            session.close();
        } finally {
            store.close();
        }
    }
}
