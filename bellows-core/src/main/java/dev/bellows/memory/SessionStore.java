package dev.bellows.memory;

import dev.bellows.provider.Message;
import java.util.List;
import java.util.Optional;

/**
 * Persistent {@link StoredSession}s, by name: a database of conversations that outlives the JVM.
 * Implementations live in their own modules (bellows-sessions-sqlite,
 * bellows-sessions-postgres); core only defines the contract.
 *
 * <p>Names are checked by {@link SessionNames#check}: 1 to 100 letters, digits, {@code .},
 * {@code _} or {@code -}, not starting with {@code .} or {@code -}.
 */
public interface SessionStore extends AutoCloseable {

    /**
     * Opens the session of that name, creating it empty when there is none.
     *
     * @throws IllegalArgumentException for a name {@link SessionNames#check} refuses
     * @throws SessionInUseException    when the store allows one user per session and another
     *                                  process (or handle) has it open
     * @throws SessionStoreException    when the database cannot be read or written
     */
    StoredSession open(String name);

    /**
     * Opens the session of that name (creating it empty when there is none) for one user at a
     * time across everyone who uses this database: while the handle is open, another
     * {@code openExclusive} of that name, in this process or another one, throws
     * {@link SessionInUseException}; closing the handle (or the death of its process) lets the
     * next one in. A server that runs one conversation's requests one after another, on one
     * machine or several, opens sessions this way.
     *
     * <p>The default refuses: a store says how it keeps users apart by implementing it.
     *
     * @throws SessionInUseException         when another exclusive handle has it open
     * @throws UnsupportedOperationException when this store cannot keep users of a session apart
     * @throws SessionStoreException         when the database cannot be read or written
     */
    default StoredSession openExclusive(String name) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot open a session for one user at a time");
    }

    /** Every session, by name; empty when there are none. */
    List<SessionInfo> list();

    /** The session of that name, without opening it; empty when there is none. */
    Optional<SessionInfo> find(String name);

    /**
     * The session's turns, oldest first, read without opening it (so also while someone else
     * has it open); empty when there is no such session.
     */
    Optional<List<List<Message>>> turns(String name);

    /**
     * The session's turns grouped by exchange, oldest first, read without opening it: each
     * element holds the turns one committed exchange stored, in order, or the one turn an
     * {@link StoredSession#append append} outside an exchange stored. Flattened, they are
     * {@link #turns(String)}; their number is {@link SessionInfo#requests()}. Empty when there is
     * no such session.
     */
    Optional<List<List<List<Message>>>> exchanges(String name);

    /**
     * The session's waiting run ({@link StoredSession#waitingRun()}), read without opening it;
     * empty when there is no such session or nothing waits.
     */
    Optional<WaitingRun> waitingRun(String name);

    /**
     * Deletes the session and its turns.
     *
     * @return whether there was such a session
     * @throws SessionInUseException when the store allows one user per session and it is open
     */
    boolean delete(String name);

    /** Releases the database; sessions opened from this store must be closed first. */
    @Override
    void close();
}
