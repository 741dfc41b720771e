package dev.bellows.sessions.jdbc;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.internal.SessionJson;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.secret.Secrets;
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

/**
 * Sessions in a relational database over JDBC: the tables {@code sessions} (a row per session:
 * its counters, plan, metadata and waiting run), {@code turns}, {@code messages} and
 * {@code waiting_log}, each named with the dialect's prefix. Every write is one transaction:
 * each turn appended outside an exchange, each committed exchange (its turns, their messages,
 * the session's counters, a pending plan and the waiting run), so a client that dies mid-run
 * leaves nothing of that run. A write first locks its session's row ({@link SqlText#forUpdate()}),
 * so writers of one session take turns and each gets the next sequence numbers: an exchange's
 * turns never interleave with another writer's.
 *
 * <p>Handles: where the dialect locks each handle ({@link SqlDialect#lockHandle}), a session
 * has one user at a time and its handle reads from memory after opening; otherwise a session
 * may be open in several places at once, and each read of a handle asks the database for what
 * changed since its last one (the turns after the last seen, or all after a {@code clear}).
 *
 * <p>Thread-safe, as far as its dialect is.
 */
public final class JdbcSessionStore implements SessionStore {

    private final SqlDialect dialect;
    private final SqlText sql;
    private final String sessions;
    private final String turnsTable;
    private final String messages;
    private final String waitingLog;
    private volatile boolean closed;

    /** A store on that dialect, whose schema is current. */
    public JdbcSessionStore(SqlDialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.sql = dialect.sql();
        this.sessions = sql.tablePrefix() + "sessions";
        this.turnsTable = sql.tablePrefix() + "turns";
        this.messages = sql.tablePrefix() + "messages";
        this.waitingLog = sql.tablePrefix() + "waiting_log";
    }

    @Override
    public StoredSession open(String name) {
        return open(name, false);
    }

    /**
     * Opens the session for one user at a time: another {@code openExclusive} of it meanwhile,
     * here or elsewhere, throws {@link SessionInUseException}. Where every handle is locked
     * anyway, the same as {@link #open}.
     */
    @Override
    public StoredSession openExclusive(String name) {
        return open(name, true);
    }

    private StoredSession open(String name, boolean exclusive) {
        SessionNames.check(name);
        AutoCloseable handleLock = dialect.lockHandle(name);
        AutoCloseable exclusiveLock = null;
        try {
            long id = inTransaction("open session \"" + name + "\"", true, connection -> {
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + sessions
                        + " (name, created_at, updated_at, plan, metadata) VALUES (?, " + sql.now() + ", " + sql.now()
                        + ", ?, '{}') ON CONFLICT (name) DO NOTHING")) {
                    insert.setString(1, name);
                    insert.setString(2, SessionJson.planToJson(Plan.empty()));
                    insert.executeUpdate();
                }
                return findId(connection, name).orElseThrow(() -> new SessionStoreException(
                        "session \"" + name + "\" was deleted while it was opened"));
            });
            if (exclusive) {
                exclusiveLock = lockExclusive(name, id);
            }
            JdbcSession session = new JdbcSession(this, id, name, handleLock != null, releasing(handleLock, exclusiveLock));
            if (handleLock != null) {
                session.load();
            }
            return session;
        } catch (RuntimeException e) {
            closeQuietly(exclusiveLock);
            closeQuietly(handleLock);
            throw e;
        }
    }

    private AutoCloseable lockExclusive(String name, long id) {
        try {
            return dialect.lockExclusive(name, id);
        } catch (SQLException e) {
            throw new SessionStoreException("cannot lock session \"" + name + "\" in " + dialect.where() + ": "
                    + e.getMessage(), e);
        }
    }

    private static AutoCloseable releasing(AutoCloseable first, AutoCloseable second) {
        if (first == null || second == null) {
            return first == null ? second : first;
        }
        return () -> {
            try (first; second) {
                // closes both, the second first
            }
        };
    }

    /** Closes a lock (null: none), reporting nothing: the lock was released with its connection or file. */
    static void closeQuietly(AutoCloseable lock) {
        if (lock != null) {
            try {
                lock.close();
            } catch (Exception ignored) {
                // already failing; the first error is the one to report
            }
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
        return exchanges(name).map(exchanges -> exchanges.stream().flatMap(List::stream).toList());
    }

    @Override
    public Optional<List<List<List<Message>>>> exchanges(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", false, connection -> {
            Optional<Long> id = findId(connection, name);
            return id.isEmpty() ? Optional.empty() : Optional.of(readExchanges(connection, id.get(), name, 0));
        });
    }

    @Override
    public Optional<WaitingRun> waitingRun(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", false, connection -> {
            Optional<Long> id = findId(connection, name);
            return id.isEmpty() ? Optional.<WaitingRun>empty() : readWaitingRun(connection, id.get());
        });
    }

    @Override
    public boolean delete(String name) {
        SessionNames.check(name);
        if (find(name).isEmpty()) {
            return false;       // no handle lock (a lock file) is made for a session that does not exist
        }
        AutoCloseable handleLock = dialect.lockHandle(name);
        try {
            return inTransaction("delete session \"" + name + "\"", true, connection -> {
                try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + sessions + " WHERE name = ?")) {
                    delete.setString(1, name);
                    return delete.executeUpdate() > 0;
                }
            });
        } finally {
            closeQuietly(handleLock);
        }
    }

    /** Closes the store (and what its dialect holds); open handles are not closed. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        dialect.close();
    }

    @Override
    public String toString() {
        return "JdbcSessionStore[" + dialect.where() + "]";
    }

    private List<SessionInfo> query(String what, String where, String name) {
        return inTransaction(what, false, connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT name, created_at, updated_at, turn_count, message_count, plan, " + sql.metadataText()
                            + ", exchange_count FROM " + sessions + where + " ORDER BY name")) {
                if (name != null) {
                    select.setString(1, name);
                }
                List<SessionInfo> infos = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        infos.add(new SessionInfo(rows.getString(1), dialect.instant(rows, 2), dialect.instant(rows, 3),
                                rows.getInt(8), rows.getInt(4), rows.getInt(5),
                                SessionJson.planFromJson(rows.getString(6)),
                                SessionJson.metadataFromJson(rows.getString(7))));
                    }
                }
                return infos;
            }
        });
    }

    private Optional<Long> findId(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT id FROM " + sessions + " WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(row.getLong(1)) : Optional.empty();
            }
        }
    }

    // --- used by JdbcSession ---

    /**
     * A session's state as one snapshot read: where it stands, the turns after the sequence
     * number asked for, and (when asked for) its waiting run.
     */
    record Snapshot(long generation, long lastSeq, Plan plan, Map<String, String> metadata, List<List<Message>> turns,
                    Optional<WaitingRun> waiting) {
    }

    /**
     * Reads the session in one snapshot, so that the generation (raised by {@code clear}) and
     * the turns agree: all turns when the generation differs from the one given, else those
     * after {@code afterSeq}.
     */
    Snapshot read(long id, String name, long knownGeneration, long afterSeq, boolean withWaiting) {
        return inTransaction("read session \"" + name + "\"", false, connection -> {
            long generation;
            long lastSeq;
            Plan plan;
            Map<String, String> metadata;
            try (PreparedStatement select = connection.prepareStatement("SELECT " + sql.generation()
                    + ", next_seq - 1, plan, " + sql.metadataText() + " FROM " + sessions + " WHERE id = ?")) {
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
            List<List<Message>> turns = new ArrayList<>();
            if (from < lastSeq) {
                readExchanges(connection, id, name, from).forEach(turns::addAll);
            }
            Optional<WaitingRun> waiting = withWaiting ? readWaitingRun(connection, id) : Optional.empty();
            return new Snapshot(generation, lastSeq, plan, metadata, List.copyOf(turns), waiting);
        });
    }

    /**
     * Writes turns appended outside an exchange, in one transaction: as {@link #commitExchange}
     * with a new exchange and no waiting run.
     */
    void appendTurns(long id, String name, List<List<Message>> turns, Plan pendingPlan) {
        commitExchange(id, name, turns, false, pendingPlan, false, null);
    }

    /**
     * Writes one exchange in one transaction holding the session's row lock: its turns, in order
     * and with consecutive sequence numbers (the first marked as the start of an exchange and
     * the session's count of exchanges raised; none when there are no turns, nor when
     * {@code continuesLast} and the session has an exchange, which they then join), a pending
     * plan, and, when {@code waitingChanged}, the waiting run set to {@code waiting} (null:
     * removed) with its log emptied.
     */
    void commitExchange(long id, String name, List<List<Message>> turns, boolean continuesLast, Plan pendingPlan,
                        boolean waitingChanged, String waiting) {
        inTransaction("store " + (turns.size() == 1 ? "a turn" : turns.size() + " turns") + " of session \"" + name + "\"",
                true, connection -> {
            long first;
            boolean begins;
            try (PreparedStatement lock = connection.prepareStatement(
                    "SELECT next_seq, exchange_count FROM " + sessions + " WHERE id = ?" + sql.forUpdate())) {
                lock.setLong(1, id);
                try (ResultSet row = lock.executeQuery()) {
                    if (!row.next()) {
                        throw deleted(name);
                    }
                    first = row.getLong(1);
                    begins = !continuesLast || row.getInt(2) == 0;
                }
            }
            if (!turns.isEmpty()) {
                insertTurns(connection, id, turns, first, begins, pendingPlan);
            }
            if (waitingChanged) {
                writeWaiting(connection, id, waiting);
            }
            return null;
        });
    }

    private void insertTurns(Connection connection, long id, List<List<Message>> turns, long first, boolean begins,
                             Plan pendingPlan) throws SQLException {
        long seq = first;
        int messageCount = 0;
        try (PreparedStatement turnRow = connection.prepareStatement("INSERT INTO " + turnsTable
                + " (session_id, seq, created_at, message_count, begins_exchange) VALUES (?, ?, " + sql.now() + ", ?, ?)");
             PreparedStatement insert = connection.prepareStatement("INSERT INTO " + messages
                + " (session_id, turn_seq, position, role, content, native_parts) VALUES (?, ?, ?, ?, ?, ?)")) {
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
                    dialect.setContent(insert, 5, Secrets.redact(message.content())); // an echoed key is never stored
                    insert.setString(6, SessionJson.nativePartsToJson(message));
                    insert.addBatch();
                }
                messageCount += turn.size();
                seq++;
            }
            turnRow.executeBatch();     // the turns before their messages: the foreign key
            insert.executeBatch();
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + sessions
                + " SET next_seq = ?, turn_count = turn_count + ?, exchange_count = exchange_count + ?,"
                + " message_count = message_count + ?, updated_at = " + sql.now() + ", plan = coalesce(?, plan)"
                + " WHERE id = ?")) {
            update.setLong(1, seq);
            update.setInt(2, turns.size());
            update.setInt(3, begins ? 1 : 0);
            update.setInt(4, messageCount);
            update.setString(5, pendingPlan == null ? null : SessionJson.planToJson(pendingPlan));
            update.setLong(6, id);
            update.executeUpdate();
        }
    }

    /** Sets or removes the waiting run, at once, in one transaction holding the session's row lock. */
    void writeWaitingRun(long id, String name, String waiting) {
        inTransaction("store the waiting run of session \"" + name + "\"", true, connection -> {
            lockSession(connection, id, name);
            writeWaiting(connection, id, waiting);
            return null;
        });
    }

    /** Within a transaction: the waiting run set or removed, its log emptied. */
    private void writeWaiting(Connection connection, long id, String waiting) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + sessions + " SET waiting_run = ?, updated_at = " + sql.now() + " WHERE id = ?");
             PreparedStatement delete = connection.prepareStatement("DELETE FROM " + waitingLog + " WHERE session_id = ?")) {
            update.setString(1, waiting);
            update.setLong(2, id);
            update.executeUpdate();
            delete.setLong(1, id);
            delete.executeUpdate();
        }
    }

    /**
     * Appends entries to the waiting run's log, in one transaction holding the session's row lock.
     *
     * @throws IllegalStateException when the session has no waiting run stored
     */
    void appendWaitingLog(long id, String name, List<String> entries) {
        inTransaction("store a step of the waiting run of session \"" + name + "\"", true, connection -> {
            lockSession(connection, id, name);
            int last;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT waiting_run IS NOT NULL, (SELECT coalesce(max(seq), 0) FROM " + waitingLog
                            + " WHERE session_id = ?) FROM " + sessions + " WHERE id = ?")) {
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
                    "INSERT INTO " + waitingLog + " (session_id, seq, entry) VALUES (?, ?, ?)")) {
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

    /** The session's waiting run and its log, in one snapshot. */
    Optional<WaitingRun> readWaitingRun(long id, String name) {
        return inTransaction("read the waiting run of session \"" + name + "\"", false,
                connection -> readWaitingRun(connection, id));
    }

    private Optional<WaitingRun> readWaitingRun(Connection connection, long id) throws SQLException {
        String state;
        try (PreparedStatement select = connection.prepareStatement("SELECT waiting_run FROM " + sessions + " WHERE id = ?")) {
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
                "SELECT entry FROM " + waitingLog + " WHERE session_id = ? ORDER BY seq")) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    log.add(rows.getString(1));
                }
            }
        }
        return Optional.of(new WaitingRun(state, log));
    }

    /** Deletes the session's turns and waiting run and raises its generation, in one transaction. */
    void clearTurns(long id, String name) {
        inTransaction("clear session \"" + name + "\"", true, connection -> {
            lockSession(connection, id, name);
            writeWaiting(connection, id, null);
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + turnsTable + " WHERE session_id = ?");
                 PreparedStatement update = connection.prepareStatement("UPDATE " + sessions
                         + " SET turn_count = 0, exchange_count = 0, message_count = 0" + sql.bumpGeneration()
                         + ", updated_at = " + sql.now() + " WHERE id = ?")) {
                delete.setLong(1, id);
                delete.executeUpdate();
                update.setLong(1, id);
                update.executeUpdate();
            }
            return null;
        });
    }

    void writePlan(long id, String name, Plan plan) {
        inTransaction("store the plan of session \"" + name + "\"", true, connection -> {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE " + sessions + " SET plan = ?, updated_at = " + sql.now() + " WHERE id = ?")) {
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
        return inTransaction("store the metadata of session \"" + name + "\"", true, connection -> {
            try (PreparedStatement update = connection.prepareStatement("UPDATE " + sessions + " SET metadata = "
                    + sql.mergeMetadata() + ", updated_at = " + sql.now() + " WHERE id = ? RETURNING " + sql.metadataText())) {
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

    /** Locks the session's row until the transaction ends. */
    private void lockSession(Connection connection, long id, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT next_seq FROM " + sessions + " WHERE id = ?" + sql.forUpdate())) {
            lock.setLong(1, id);
            try (ResultSet row = lock.executeQuery()) {
                if (!row.next()) {
                    throw deleted(name);
                }
            }
        }
    }

    private static SessionStoreException deleted(String name) {
        return new SessionStoreException("session \"" + name + "\" was deleted (by another user of the database);"
                + " open it again to start it anew");
    }

    /**
     * The turns after {@code afterSeq} grouped by exchange, oldest first; checks that every turn
     * holds the messages it says. Turns before the first marked start (those of an exchange
     * begun at or before {@code afterSeq}) form one.
     */
    private List<List<List<Message>>> readExchanges(Connection connection, long id, String name, long afterSeq)
            throws SQLException {
        List<List<List<Message>>> exchanges = new ArrayList<>();
        List<List<Message>> turns = null;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT t.seq, t.message_count, t.begins_exchange, m.role, m.content, m.native_parts FROM " + turnsTable
                        + " t LEFT JOIN " + messages + " m ON m.session_id = t.session_id AND m.turn_seq = t.seq"
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
                        if (turns == null || rows.getBoolean(3)) {
                            turns = new ArrayList<>();
                            exchanges.add(turns);
                        }
                    }
                    String role = rows.getString(4);
                    if (role != null) {
                        current.add(SessionJson.message(role(role, name), dialect.content(rows, 5), rows.getString(6)));
                    }
                }
                finishTurn(turns, current, expected, name, currentSeq);
            }
        }
        return exchanges.stream().map(List::copyOf).toList();
    }

    private void finishTurn(List<List<Message>> turns, List<Message> turn, int expected, String name, long seq) {
        if (turn == null) {
            return;
        }
        if (turn.size() != expected || turn.isEmpty()) {
            // Cannot happen through this class (one transaction per write); a damaged or edited database.
            throw new SessionStoreException("session \"" + name + "\" in " + dialect.where() + " is damaged: turn " + seq
                    + " holds " + turn.size() + " of its " + expected + " messages");
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

    /** Runs the work in one transaction of the dialect's; a database's failure becomes a {@link SessionStoreException}. */
    private <T> T inTransaction(String what, boolean write, SqlWork<T> work) {
        if (closed) {
            throw new IllegalStateException("this session store is closed (" + dialect.where() + ")");
        }
        try {
            return dialect.inTransaction(write, work);
        } catch (SQLException e) {
            throw new SessionStoreException("cannot " + what + " in " + dialect.where() + ": " + e.getMessage(), e);
        }
    }
}
