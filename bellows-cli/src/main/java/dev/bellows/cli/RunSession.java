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

    private RunSession(SessionStore store, StoredSession session) {
        this.store = store;
        this.session = session;
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

    /** The listener, plus keeping each new plan for the session. */
    AgentListener keepingPlans(AgentListener listener) {
        return event -> {
            if (event instanceof LoopEvent.PlanUpdate update) {
                session.plan(new Plan(update.steps()));
            }
            listener.onEvent(event);
        };
    }

    /** Gives the agent the session's plan, and records what this run uses. */
    void start(Agent agent, String provider, String model, ToolMode toolMode) {
        if (agent instanceof DefaultAgent defaultAgent) {
            defaultAgent.plan(session.plan());
        }
        session.putMetadata(Map.of(StoredSession.MODEL, model,
                StoredSession.TOOL_MODE, toolMode.name().toLowerCase(Locale.ROOT), "provider", provider));
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
