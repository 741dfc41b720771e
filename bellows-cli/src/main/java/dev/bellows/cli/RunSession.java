package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.plan.Plan;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bellows run --session NAME}: the run continues a stored conversation. The session is
 * the agent's memory store (each turn written in one transaction as the loop adds it), its
 * plan is given back to the agent and every {@code plan_update} kept with the next turn, and
 * the model and tool mode the run used are recorded. Closing writes a plan no turn followed
 * and releases the session's lock.
 */
final class RunSession implements AutoCloseable {

    private final SqliteSessionStore store;
    private final StoredSession session;

    private RunSession(SqliteSessionStore store, StoredSession session) {
        this.store = store;
        this.session = session;
    }

    /**
     * Opens (creating when new) the session in the data directory.
     *
     * @throws UsageException for a bad name, a data directory that cannot be used, or a session
     *                        open in another process: nothing is sent to a model then
     */
    static RunSession open(Host host, String name, String dataDirFlag) throws UsageException {
        try {
            SessionNames.check(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--session: " + e.getMessage());
        }
        SqliteSessionStore store;
        try {
            store = SqliteSessionStore.open(DataDirectory.resolve(host, dataDirFlag));
        } catch (SessionStoreException e) {
            throw new UsageException("--data-dir: " + e.getMessage());
        }
        try {
            return new RunSession(store, store.open(name));
        } catch (SessionStoreException e) {
            store.close();
            // A usage error never repeats an option's value, and hiding the name inside the
            // store's words would garble them (a lock path holding it): say "the session".
            throw new UsageException("--session: " + e.getMessage().replace("session \"" + name + "\"", "the session")
                    .replaceAll(" \\(its lock: [^)]*\\)", ""));
        }
    }

    /**
     * The settings a stored session last ran with (model, tool mode), read without opening or
     * locking it: {@code run --session NAME} falls back on them when none is configured, so a
     * session continues with the model it started with. Empty for a new session.
     *
     * @throws UsageException for a bad name or a data directory that cannot be read
     */
    static Map<String, String> storedSettings(Host host, String name, String dataDirFlag) throws UsageException {
        try {
            SessionNames.check(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--session: " + e.getMessage());
        }
        Path dir = DataDirectory.resolve(host, dataDirFlag);
        if (!Files.exists(dir.resolve("sessions.db"))) {
            return Map.of();
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
            return store.find(name).map(SessionInfo::metadata).orElse(Map.of());
        } catch (SessionStoreException e) {
            throw new UsageException("--data-dir: " + e.getMessage());
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
