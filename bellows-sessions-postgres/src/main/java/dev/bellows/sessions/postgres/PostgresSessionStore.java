package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionJson;
import dev.bellows.secret.Secrets;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * back; give a pooled data source for many sessions.
 */
public final class PostgresSessionStore implements SessionStore {

    private final DataSource dataSource;
    private final String description;
    private volatile boolean closed;

    private PostgresSessionStore(DataSource dataSource, String description) {
        this.dataSource = dataSource;
        this.description = description;
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
        PostgresSessionStore store = new PostgresSessionStore(dataSource, description);
        store.inTransaction("migrate the sessions schema", connection -> {
            PostgresSchema.migrate(connection, description);
            return null;
        });
        return store;
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }

    @Override
    public StoredSession open(String name) {
        SessionNames.check(name);
        return inTransaction("open session \"" + name + "\"", connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO bellows_sessions (name, plan) VALUES (?, ?) ON CONFLICT (name) DO NOTHING")) {
                insert.setString(1, name);
                insert.setString(2, SessionJson.planToJson(Plan.empty()));
                insert.executeUpdate();
            }
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT id FROM bellows_sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        throw new SessionStoreException("session \"" + name + "\" was deleted while it was opened");
                    }
                    return new PostgresSession(this, row.getLong(1), name);
                }
            }
        });
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
        PostgresSession opened = (PostgresSession) open(name);
        long id = opened.id();
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new SessionStoreException("cannot lock session \"" + name + "\" in " + description + ": "
                    + e.getMessage(), e);
        }
        try {
            connection.setAutoCommit(true);
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
                lock.setInt(1, SESSION_LOCK_CLASS);
                lock.setInt(2, (int) id);
                try (ResultSet row = lock.executeQuery()) {
                    row.next();
                    if (!row.getBoolean(1)) {
                        connection.close();
                        throw new SessionInUseException("session \"" + name + "\" is in use: another user of "
                                + description + " has it open for itself; try again when it is done");
                    }
                }
            }
        } catch (SQLException e) {
            closeQuietly(connection);
            throw new SessionStoreException("cannot lock session \"" + name + "\" in " + description + ": "
                    + e.getMessage(), e);
        }
        return new PostgresSession(this, id, name, () -> {
            try (Connection held = connection; PreparedStatement unlock = held.prepareStatement(
                    "SELECT pg_advisory_unlock(?, ?)")) {
                unlock.setInt(1, SESSION_LOCK_CLASS);
                unlock.setInt(2, (int) id);
                unlock.execute();
            }
        });
    }

    /** The first key of the sessions' advisory locks ("Bell"), the session's id the second. */
    private static final int SESSION_LOCK_CLASS = 0x42656c6c;

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing what failed: the first error is the one to report
        }
    }

    @Override
    public List<SessionInfo> list() {
        return query("list the sessions", "", null);
    }

    @Override
    public Optional<SessionInfo> find(String name) {
        SessionNames.check(name);
        return query("read session \"" + name + "\"", " WHERE name = ?", name).stream().findFirst();
    }

    @Override
    public Optional<List<List<Message>>> turns(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", Connection.TRANSACTION_REPEATABLE_READ, connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM bellows_sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(List.copyOf(readTurns(connection, row.getLong(1), name, 0)));
                }
            }
        });
    }

    @Override
    public Optional<List<List<List<Message>>>> exchanges(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", Connection.TRANSACTION_REPEATABLE_READ, connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM bellows_sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(readExchanges(connection, row.getLong(1), name, 0));
                }
            }
        });
    }

    @Override
    public Optional<WaitingRun> waitingRun(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", Connection.TRANSACTION_REPEATABLE_READ, connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM bellows_sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? readWaitingRun(connection, row.getLong(1)) : Optional.<WaitingRun>empty();
                }
            }
        });
    }

    @Override
    public boolean delete(String name) {
        SessionNames.check(name);
        return inTransaction("delete session \"" + name + "\"", connection -> {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM bellows_sessions WHERE name = ?")) {
                delete.setString(1, name);
                return delete.executeUpdate() > 0;
            }
        });
    }

    /** Marks the store closed; the data source is the caller's to close. */
    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "PostgresSessionStore[" + description + "]";
    }

    private List<SessionInfo> query(String what, String where, String name) {
        return inTransaction(what, connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT name, created_at, updated_at, turn_count, message_count, plan, metadata::text,"
                            + " exchange_count FROM bellows_sessions" + where + " ORDER BY name")) {
                if (name != null) {
                    select.setString(1, name);
                }
                List<SessionInfo> infos = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        infos.add(new SessionInfo(rows.getString(1), rows.getTimestamp(2).toInstant(),
                                rows.getTimestamp(3).toInstant(), rows.getInt(8), rows.getInt(4), rows.getInt(5),
                                SessionJson.planFromJson(rows.getString(6)),
                                SessionJson.metadataFromJson(rows.getString(7))));
                    }
                }
                return infos;
            }
        });
    }

    // --- used by PostgresSession ---

    /** A session's state as one snapshot read: where it stands, and the turns after {@code afterSeq}. */
    record Snapshot(long generation, long lastSeq, Plan plan, Map<String, String> metadata, List<List<Message>> turns) {
    }

    /**
     * Reads the session in one REPEATABLE READ snapshot, so that the generation (bumped by
     * {@code clear}) and the turns agree: all turns when the generation differs from the one
     * given, else those after {@code afterSeq}.
     */
    Snapshot read(long id, String name, long knownGeneration, long afterSeq) {
        return inTransaction("read session \"" + name + "\"", Connection.TRANSACTION_REPEATABLE_READ, connection -> {
            long generation;
            long lastSeq;
            Plan plan;
            Map<String, String> metadata;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT generation, next_seq - 1, plan, metadata::text FROM bellows_sessions WHERE id = ?")) {
                select.setLong(1, id);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        throw deleted(name);
                    }
                    generation = row.getLong(1);
                    lastSeq = row.getLong(2);
                    plan = SessionJson.planFromJson(row.getString(3));
                    metadata = SessionJson.metadataFromJson(row.getString(4));
                }
            }
            long from = generation == knownGeneration ? afterSeq : 0;
            List<List<Message>> turns = from >= lastSeq ? List.of() : readTurns(connection, id, name, from);
            return new Snapshot(generation, lastSeq, plan, metadata, turns);
        });
    }

    /**
     * Writes one exchange: its turns, in order and with consecutive sequence numbers (the first
     * marked as the start of an exchange, and the session's count of exchanges raised), and a
     * pending plan, in one transaction holding the session's row lock.
     */
    void appendTurns(long id, String name, List<List<Message>> turns, Plan pendingPlan) {
        commitExchange(id, name, turns, false, pendingPlan, false, null);
    }

    /**
     * As {@link #appendTurns} (no exchange counted when there are no turns, nor when
     * {@code continuesLast} and the session has an exchange, which they then join), and, when
     * {@code waitingChanged}, the waiting run set to {@code waiting} (null: removed) with its log
     * emptied, all in one transaction holding the session's row lock.
     */
    void commitExchange(long id, String name, List<List<Message>> turns, boolean continuesLast, Plan pendingPlan,
                        boolean waitingChanged, String waiting) {
        inTransaction("store " + (turns.size() == 1 ? "a turn" : turns.size() + " turns") + " of session \"" + name + "\"",
                connection -> {
            long seq = lockSession(connection, id, name);
            long first = seq;
            int messages = 0;
            boolean begins = !continuesLast || exchangeCount(connection, id) == 0;
            if (!turns.isEmpty()) {
                try (PreparedStatement turnRow = connection.prepareStatement(
                        "INSERT INTO bellows_turns (session_id, seq, message_count, begins_exchange) VALUES (?, ?, ?, ?)");
                     PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO bellows_messages (session_id, turn_seq, position, role, content, native_parts)"
                                + " VALUES (?, ?, ?, ?, ?, ?)")) {
                    for (List<Message> turn : turns) {
                        turnRow.setLong(1, id);
                        turnRow.setLong(2, seq);
                        turnRow.setInt(3, turn.size());
                        turnRow.setBoolean(4, begins && seq == first);
                        turnRow.addBatch();
                        for (int position = 0; position < turn.size(); position++) {
                            Message message = turn.get(position);
                            insert.setLong(1, id);
                            insert.setLong(2, seq);
                            insert.setInt(3, position);
                            insert.setString(4, message.role().wireName());
                            insert.setBytes(5, Secrets.redact(message.content()).getBytes(StandardCharsets.UTF_8)); // never an echoed key
                            insert.setString(6, SessionJson.nativePartsToJson(message));
                            insert.addBatch();
                        }
                        messages += turn.size();
                        seq++;
                    }
                    turnRow.executeBatch();     // the turns before their messages: the foreign key
                    insert.executeBatch();
                }
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE bellows_sessions SET next_seq = ?, turn_count = turn_count + ?, exchange_count = exchange_count + ?,"
                                + " message_count = message_count + ?, updated_at = now(), plan = coalesce(?, plan)"
                                + " WHERE id = ?")) {
                    update.setLong(1, seq);
                    update.setInt(2, turns.size());
                    update.setInt(3, begins ? 1 : 0);
                    update.setInt(4, messages);
                    update.setString(5, pendingPlan == null ? null : SessionJson.planToJson(pendingPlan));
                    update.setLong(6, id);
                    update.executeUpdate();
                }
            }
            if (waitingChanged) {
                writeWaiting(connection, id, waiting);
            }
            return null;
        });
    }

    /** The session's count of exchanges, read in the transaction that holds its row lock. */
    private static int exchangeCount(Connection connection, long id) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement("SELECT exchange_count FROM bellows_sessions WHERE id = ?")) {
            count.setLong(1, id);
            try (ResultSet row = count.executeQuery()) {
                return row.next() ? row.getInt(1) : 0;
            }
        }
    }

    /** Sets or removes the waiting run, at once, in one transaction holding the session's row lock. */
    void writeWaitingRun(long id, String name, String waiting) {
        inTransaction("store the waiting run of session \"" + name + "\"", connection -> {
            lockSession(connection, id, name);
            writeWaiting(connection, id, waiting);
            return null;
        });
    }

    private static void writeWaiting(Connection connection, long id, String waiting) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE bellows_sessions SET waiting_run = ?, updated_at = now() WHERE id = ?");
             PreparedStatement delete = connection.prepareStatement("DELETE FROM bellows_waiting_log WHERE session_id = ?")) {
            update.setString(1, waiting);
            update.setLong(2, id);
            update.executeUpdate();
            delete.setLong(1, id);
            delete.executeUpdate();
        }
    }

    /** Appends entries to the waiting run's log, in one transaction holding the session's row lock. */
    void appendWaitingLog(long id, String name, List<String> entries) {
        inTransaction("store a step of the waiting run of session \"" + name + "\"", connection -> {
            lockSession(connection, id, name);
            int last;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT waiting_run IS NOT NULL, (SELECT coalesce(max(seq), 0) FROM bellows_waiting_log"
                            + " WHERE session_id = ?) FROM bellows_sessions WHERE id = ?")) {
                select.setLong(1, id);
                select.setLong(2, id);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        throw deleted(name);
                    }
                    if (!row.getBoolean(1)) {
                        throw new IllegalStateException("session \"" + name + "\" has no waiting run stored to log to");
                    }
                    last = row.getInt(2);
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO bellows_waiting_log (session_id, seq, entry) VALUES (?, ?, ?)")) {
                for (String entry : entries) {
                    insert.setLong(1, id);
                    insert.setInt(2, ++last);
                    insert.setString(3, entry);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            return null;
        });
    }

    /** The session's waiting run and its log, in one REPEATABLE READ snapshot. */
    Optional<WaitingRun> readWaitingRun(long id, String name) {
        return inTransaction("read the waiting run of session \"" + name + "\"", Connection.TRANSACTION_REPEATABLE_READ,
                connection -> readWaitingRun(connection, id));
    }

    private static Optional<WaitingRun> readWaitingRun(Connection connection, long id) throws SQLException {
        String state;
        try (PreparedStatement select = connection.prepareStatement("SELECT waiting_run FROM bellows_sessions WHERE id = ?")) {
            select.setLong(1, id);
            try (ResultSet row = select.executeQuery()) {
                state = row.next() ? row.getString(1) : null;
            }
        }
        if (state == null) {
            return Optional.empty();
        }
        List<String> log = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT entry FROM bellows_waiting_log WHERE session_id = ? ORDER BY seq")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    log.add(rows.getString(1));
                }
            }
        }
        return Optional.of(new WaitingRun(state, log));
    }

    void clearTurns(long id, String name) {
        inTransaction("clear session \"" + name + "\"", connection -> {
            lockSession(connection, id, name);
            writeWaiting(connection, id, null);
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM bellows_turns WHERE session_id = ?");
                 PreparedStatement update = connection.prepareStatement(
                         "UPDATE bellows_sessions SET turn_count = 0, exchange_count = 0, message_count = 0,"
                                 + " generation = generation + 1,"
                                 + " updated_at = now() WHERE id = ?")) {
                delete.setLong(1, id);
                delete.executeUpdate();
                update.setLong(1, id);
                update.executeUpdate();
            }
            return null;
        });
    }

    void writePlan(long id, String name, Plan plan) {
        inTransaction("store the plan of session \"" + name + "\"", connection -> {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE bellows_sessions SET plan = ?, updated_at = now() WHERE id = ?")) {
                update.setString(1, SessionJson.planToJson(plan));
                update.setLong(2, id);
                if (update.executeUpdate() == 0) {
                    throw deleted(name);
                }
            }
            return null;
        });
    }

    /** Merges the entries into the stored metadata in one statement (no lost update); the result. */
    Map<String, String> mergeMetadata(long id, String name, Map<String, String> entries) {
        return inTransaction("store the metadata of session \"" + name + "\"", connection -> {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE bellows_sessions SET metadata = metadata || ?::jsonb, updated_at = now()"
                            + " WHERE id = ? RETURNING metadata::text")) {
                update.setString(1, SessionJson.metadataToJson(entries));
                update.setLong(2, id);
                try (ResultSet row = update.executeQuery()) {
                    if (!row.next()) {
                        throw deleted(name);
                    }
                    return SessionJson.metadataFromJson(row.getString(1));
                }
            }
        });
    }

    /** Locks the session's row until the transaction ends; its next sequence number. */
    private static long lockSession(Connection connection, long id, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT next_seq FROM bellows_sessions WHERE id = ? FOR UPDATE")) {
            lock.setLong(1, id);
            try (ResultSet row = lock.executeQuery()) {
                if (!row.next()) {
                    throw deleted(name);
                }
                return row.getLong(1);
            }
        }
    }

    private static SessionStoreException deleted(String name) {
        return new SessionStoreException("session \"" + name + "\" was deleted (by another user of the database);"
                + " open it again to start it anew");
    }

    private static List<List<Message>> readTurns(Connection connection, long id, String name, long afterSeq)
            throws SQLException {
        List<List<Message>> turns = new ArrayList<>();
        readExchanges(connection, id, name, afterSeq).forEach(turns::addAll);
        return turns;
    }

    /**
     * The turns after {@code afterSeq} grouped by exchange, oldest first; turns before the first
     * marked start (those of an exchange begun at or before {@code afterSeq}) form one.
     */
    private static List<List<List<Message>>> readExchanges(Connection connection, long id, String name, long afterSeq)
            throws SQLException {
        List<List<List<Message>>> exchanges = new ArrayList<>();
        List<List<Message>> turns = null;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT t.seq, t.message_count, m.role, m.content, m.native_parts, t.begins_exchange FROM bellows_turns t"
                        + " LEFT JOIN bellows_messages m ON m.session_id = t.session_id AND m.turn_seq = t.seq"
                        + " WHERE t.session_id = ? AND t.seq > ? ORDER BY t.seq, m.position")) {
            select.setLong(1, id);
            select.setLong(2, afterSeq);
            try (ResultSet rows = select.executeQuery()) {
                long currentSeq = -1;
                int expected = 0;
                List<Message> current = null;
                while (rows.next()) {
                    long seq = rows.getLong(1);
                    if (seq != currentSeq) {
                        finishTurn(turns, current, expected, name, currentSeq);
                        currentSeq = seq;
                        expected = rows.getInt(2);
                        current = new ArrayList<>();
                        if (turns == null || rows.getBoolean(6)) {
                            turns = new ArrayList<>();
                            exchanges.add(turns);
                        }
                    }
                    String role = rows.getString(3);
                    if (role != null) {
                        current.add(SessionJson.message(role(role, name), new String(rows.getBytes(4), StandardCharsets.UTF_8),
                                rows.getString(5)));
                    }
                }
                finishTurn(turns, current, expected, name, currentSeq);
            }
        }
        return exchanges.stream().map(List::copyOf).toList();
    }

    private static void finishTurn(List<List<Message>> turns, List<Message> turn, int expected, String name, long seq) {
        if (turn == null) {
            return;
        }
        if (turn.size() != expected || turn.isEmpty()) {
            throw new SessionStoreException("session \"" + name + "\" is damaged: turn " + seq + " holds "
                    + turn.size() + " of its " + expected + " messages");
        }
        turns.add(List.copyOf(turn));
    }

    private static Role role(String wireName, String name) {
        try {
            return Role.valueOf(wireName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new SessionStoreException("session \"" + name + "\" holds a message with unknown role " + wireName);
        }
    }

    // --- plumbing ---

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T inTransaction(String what, SqlWork<T> work) {
        return inTransaction(what, Connection.TRANSACTION_READ_COMMITTED, work);
    }

    /** Runs the work in one transaction on a connection of its own, committed, or rolled back on any failure. */
    private <T> T inTransaction(String what, int isolation, SqlWork<T> work) {
        if (closed) {
            throw new IllegalStateException("this session store is closed (" + description + ")");
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(isolation);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException ignored) {
                    // the connection is gone; the first error is the one to report
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new SessionStoreException("cannot " + what + " in " + description + ": " + e.getMessage(), e);
        }
    }
}
