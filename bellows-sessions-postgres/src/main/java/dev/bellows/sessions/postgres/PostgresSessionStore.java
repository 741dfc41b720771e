package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.provider.Message;
import dev.bellows.sessions.jdbc.JdbcSessionStore;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Sessions in PostgreSQL, for teams that share them across machines.
 *
 * <pre>{@code
 * try (PostgresSessionStore store = PostgresSessionStore.open(dataSource);   // your pool, e.g. HikariCP
 *      StoredSession session = store.open("release-notes")) {
 *     ConversationMemory memory = ConversationMemory.builder().store(session).build();
 *     ...
 * }
 * }</pre>
 *
 * <h2>Safety</h2>
 * The schema ({@code bellows_*} tables) is migrated on open, once however many JVMs start at
 * once. Each turn appended outside an exchange, and each committed exchange (a run's turns,
 * see {@link dev.bellows.memory.StoredSession#beginExchange()}), is one transaction that
 * first locks its session's row ({@code SELECT ... FOR UPDATE}): writers of one session take
 * turns, each write gets the next sequence numbers and all its messages, so two writers
 * racing lose nothing and never interleave (an exchange's turns stay together); writers of
 * different sessions never wait for each other. A session may be open in several JVMs at
 * once (unlike the SQLite store): each handle sees the others' turns on its next read, its
 * own open exchange's after them. A client that dies mid-run leaves nothing of that run:
 * its exchange was never sent, or PostgreSQL rolls its transaction back.
 *
 * <p>Thread-safe. Every operation borrows a connection from the data source and gives it
 * back; give a pooled data source for many sessions. The store is bellows-sessions-jdbc's
 * {@link JdbcSessionStore} on PostgreSQL's dialect.
 */
public final class PostgresSessionStore implements SessionStore {

    private final String description;
    private final JdbcSessionStore sessions;

    private PostgresSessionStore(String description, JdbcSessionStore sessions) {
        this.description = description;
        this.sessions = sessions;
    }

    /**
     * A store on that data source; migrates the schema.
     *
     * @throws SessionStoreException when the database cannot be reached or migrated
     */
    public static PostgresSessionStore open(DataSource dataSource) {
        return open(Objects.requireNonNull(dataSource, "dataSource"), "the PostgreSQL data source");
    }

    /**
     * A store that opens a connection per operation (no pool) from a JDBC URL such as
     * {@code jdbc:postgresql://db.example.com/bellows}; migrates the schema.
     *
     * @param password the password, or null; it never appears in messages
     * @throws SessionStoreException    when the database cannot be reached or migrated
     * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL
     */
    public static PostgresSessionStore open(String jdbcUrl, String user, String password) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://HOST[:PORT]/DATABASE): "
                    + withoutQuery(jdbcUrl));
        }
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setUrl(jdbcUrl);
        if (user != null) {
            source.setUser(user);
        }
        if (password != null) {
            source.setPassword(password);
        }
        return open(source, withoutQuery(jdbcUrl));
    }

    private static PostgresSessionStore open(DataSource dataSource, String description) {
        PostgresDialect dialect = new PostgresDialect(dataSource, description);
        try {
            dialect.inTransaction(true, connection -> {
                PostgresSchema.migrate(connection, description);
                return null;
            });
        } catch (SQLException e) {
            throw new SessionStoreException("cannot migrate the sessions schema in " + description + ": "
                    + e.getMessage(), e);
        }
        return new PostgresSessionStore(description, new JdbcSessionStore(dialect));
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }

    @Override
    public StoredSession open(String name) {
        return sessions.open(name);
    }

    /**
     * Opens the session for one user at a time among every JVM using this database: the handle
     * holds a session-level advisory lock ({@code pg_try_advisory_lock}) on a connection of its
     * own until it is closed. Another {@code openExclusive} of the session meanwhile, here or
     * on another machine, throws {@link SessionInUseException}; plain {@link #open} is not
     * kept out. When the holder dies, its connection closes and PostgreSQL releases the lock:
     * no stale locks. Costs one connection per open exclusive handle.
     */
    @Override
    public StoredSession openExclusive(String name) {
        return sessions.openExclusive(name);
    }

    @Override
    public List<SessionInfo> list() {
        return sessions.list();
    }

    @Override
    public Optional<SessionInfo> find(String name) {
        return sessions.find(name);
    }

    @Override
    public Optional<List<List<Message>>> turns(String name) {
        return sessions.turns(name);
    }

    @Override
    public Optional<List<List<List<Message>>>> exchanges(String name) {
        return sessions.exchanges(name);
    }

    @Override
    public Optional<WaitingRun> waitingRun(String name) {
        return sessions.waitingRun(name);
    }

    @Override
    public boolean delete(String name) {
        return sessions.delete(name);
    }

    /** Marks the store closed; the data source is the caller's to close. */
    @Override
    public void close() {
        sessions.close();
    }

    @Override
    public String toString() {
        return "PostgresSessionStore[" + description + "]";
    }
}
