package dev.bellows.memory;

import dev.bellows.plan.Plan;
import java.util.Map;

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
 * {@link #append} returns once the turn is stored, in one transaction: after a crash the
 * session holds every turn whose {@code append} returned, and possibly the one in flight,
 * but never part of a turn. {@link #plan(Plan)} is kept with the next turn, in that turn's
 * transaction, so a stored plan never runs ahead of the turns that made it; {@link #close()}
 * stores a plan that no turn followed.
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
     * Replaces the plan. It is stored with the next turn, in that turn's transaction, or by
     * {@link #close()} when no turn follows.
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

    /** Stores a pending plan and releases the session (and its lock, where the store has one). */
    @Override
    void close();
}
