package dev.bellows.memory;

import dev.bellows.plan.Plan;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A named, persistent conversation opened from a {@link SessionStore}: its turns (it is the
 * {@link MemoryStore} of a {@link ConversationMemory}), the agent's plan, and a few settings
 * it ran with (the model, the tool mode) as metadata.
 *
 * <pre>{@code
 * try (SessionStore store = SqliteSessionStore.open(SqliteSessionStore.defaultDirectory());
 *      StoredSession stored = store.open("refactor-parser")) {
 *     ConversationMemory memory = ConversationMemory.builder().store(stored).build();
 *     agent.run("Go on", new Session(memory, stored)).await();   // dev.bellows.agent.Session
 * }
 * }</pre>
 *
 * <h2>Durability</h2>
 * The unit of durability is the <em>exchange</em>: a user's request and the agent's whole
 * answer to it, which the agent loop stores as several turns (one per iteration).
 * {@link #beginExchange()} opens one: the turns appended after it are visible at once through
 * {@link #turns()}, but none is stored until {@link #commitExchange()} stores them all, in
 * order, in one transaction. After a crash or {@code kill -9} the session holds every exchange
 * whose {@code commitExchange} returned, and possibly the one committing, whole; never part of
 * one. An exchange left open (the process died, or {@link #close()} came first) stores nothing.
 * A {@code dev.bellows.agent.Session} over a stored session opens an exchange when a run
 * starts and commits it when the run ends, whatever the outcome (completed, failed or
 * cancelled), before the run's {@code await()} returns.
 *
 * <p>The store records each exchange as such (not from what its turns hold): it is one of the
 * session's {@link SessionInfo#requests() requests}, and {@link SessionStore#exchanges} gives
 * its turns back together.
 *
 * <p>Outside an exchange, {@link #append} stores its one turn in one transaction before it
 * returns, as an exchange of its own: append a request's several turns inside
 * {@code beginExchange()}/{@code commitExchange()} to have them counted as one. {@link #plan(Plan)} is kept with the next stored turn or exchange, in its
 * transaction, so a stored plan never runs ahead of the turns that made it; {@link #close()}
 * stores a plan that nothing stored followed, unless an exchange was left open (that plan
 * came from turns that were not stored).
 *
 * <h2>A waiting run</h2>
 * A run that stops at tool calls waiting for a person's decision ({@code interrupted}) leaves
 * its state here ({@link #waitingRun(String)}), stored with the run's exchange, in its
 * transaction; resuming it logs each step before taking it ({@link #logWaitingRun}: the
 * decisions before any call runs, a call's start before it runs, its outcome when it ends),
 * each in one transaction of its own, at once; the run that goes on past it removes it with
 * its own exchange. So a process killed at any moment loses no decision, and a resume in
 * another process never runs again a call whose outcome or start is logged.
 *
 * <p>Implementations are thread-safe. A session is used until {@link #close()}; afterwards
 * every method throws {@link IllegalStateException}.
 */
public interface StoredSession extends MemoryStore, AutoCloseable {

    /** Metadata key: the model the session last ran with. */
    String MODEL = "model";

    /** Metadata key: how the agent called tools (e.g. {@code tags}, {@code react}). */
    String TOOL_MODE = "tool_mode";

    /** The session's name, as given to {@link SessionStore#open}. */
    String name();

    /**
     * The plan: the one given to {@link #plan(Plan)} last, else the stored one, else
     * {@link Plan#empty()}.
     */
    Plan plan();

    /**
     * Replaces the plan. It is stored with the next stored turn or exchange, in that
     * transaction, or by {@link #close()} when nothing stored follows.
     */
    void plan(Plan plan);

    /** The metadata, a snapshot; keys and values are plain strings. */
    Map<String, String> metadata();

    /**
     * Sets metadata entries (written at once, in one transaction); the other entries stay.
     *
     * @param entries keys and values, none null or blank-keyed
     */
    void putMetadata(Map<String, String> entries);

    /**
     * Opens an exchange: the turns appended from now on are held, visible through
     * {@link #turns()}, until {@link #commitExchange()} stores them in one transaction.
     *
     * @throws IllegalStateException when an exchange is already open, or the session is closed
     */
    void beginExchange();

    /**
     * Opens an exchange that carries on the session's last stored one: a waiting run's resume,
     * whose run was already counted as a request. Its turns are held and stored as
     * {@link #beginExchange()}'s are, but counted with that exchange (one request, not a new
     * one) and given back with it by {@link SessionStore#exchanges}; when the session has no
     * stored exchange, it is one of its own. The default opens a new exchange, for a store that
     * does not tell them apart.
     *
     * @throws IllegalStateException when an exchange is already open, or the session is closed
     */
    default void continueExchange() {
        beginExchange();
    }

    /**
     * Stores the open exchange's turns, in order, and a pending plan, in one transaction, and
     * closes the exchange. When it throws ({@link SessionStoreException}), nothing of the
     * exchange is stored and its turns leave {@link #turns()}; the exchange is closed either way.
     *
     * @throws IllegalStateException when no exchange is open, or the session is closed
     */
    void commitExchange();

    /** Removes every turn, and the waiting run if there is one: the conversation starts anew. */
    @Override
    void clear();

    /**
     * The run of this session that waits for decisions, with its log; empty when none waits.
     * Inside an exchange, one set or removed there is what this gives (a new one with an empty
     * log), as {@link #turns()} gives the exchange's turns.
     */
    Optional<WaitingRun> waitingRun();

    /**
     * Stores the state of a run that waits ({@code state}), or removes it ({@code null}); either
     * way the log starts empty. Inside an exchange this is stored with it, in its transaction,
     * and dropped with it; outside one, at once, in one transaction.
     */
    void waitingRun(String state);

    /**
     * Adds entries to the waiting run's log, stored at once in one transaction, also inside an
     * exchange: each is in the store when this returns.
     *
     * @throws IllegalStateException when no waiting run is stored (one set inside the open
     *                               exchange is not stored yet)
     */
    void logWaitingRun(List<String> entries);

    /**
     * Stores a pending plan and releases the session (and its lock, where the store has one).
     * An exchange still open is dropped, its turns and plan unstored.
     */
    @Override
    void close();
}
