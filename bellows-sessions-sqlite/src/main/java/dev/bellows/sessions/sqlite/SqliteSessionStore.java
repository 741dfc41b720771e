package dev.bellows.sessions.sqlite;

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
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sqlite.SQLiteConfig;

/**
 * Sessions in an embedded SQLite database, {@code sessions.db} in a directory of the user's
 * ({@link #defaultDirectory()} unless given).
 *
 * <pre>{@code
 * try (SqliteSessionStore store = SqliteSessionStore.open(SqliteSessionStore.defaultDirectory());
 *      StoredSession session = store.open("my-task")) {
 *     ConversationMemory memory = ConversationMemory.builder().store(session).build();
 *     ...
 * }
 * }</pre>
 *
 * <h2>Safety</h2>
 * The database runs in WAL mode with {@code synchronous=FULL}: each committed exchange (a
 * run's turns, see {@link dev.bellows.memory.StoredSession#beginExchange()}), and each turn
 * appended outside one, is one write transaction (the turns' rows, their messages, the
 * session's counters and a pending plan), durable when {@code commitExchange} (or
 * {@code append}) returns, so a crash or {@code kill -9} loses at most the run in flight,
 * whole. The schema is migrated on open. A session has one user at a time: opening it takes
 * an OS file lock ({@code locks/NAME.lock}; see {@code SessionLock} for why a file lock), and
 * a second opener, in this process or another, gets a {@link dev.bellows.memory.SessionInUseException}.
 * Different sessions can be used by different processes at once; SQLite serialises their
 * writes (a writer waits up to {@value #BUSY_TIMEOUT_MILLIS} ms for another's transaction).
 *
 * <p>Thread-safe: one connection, used by one thread at a time.
 */
public final class SqliteSessionStore implements SessionStore {

    static final int BUSY_TIMEOUT_MILLIS = 30_000;
    private static final String DATABASE_FILE = "sessions.db";

    private final Path directory;
    private final Path databaseFile;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private final Connection connection;
    /** Guarded by {@link #lock}. */
    private boolean closed;

    private SqliteSessionStore(Path directory, Path databaseFile, Connection connection) {
        this.directory = directory;
        this.databaseFile = databaseFile;
        this.connection = connection;
    }

    /**
     * Opens (creating when needed) the database in that directory and migrates its schema.
     * A directory Bellows creates is readable by its owner only: conversations can hold secrets.
     *
     * @throws SessionStoreException when the directory or database cannot be created or opened
     */
    public static SqliteSessionStore open(Path directory) {
        Objects.requireNonNull(directory, "directory");
        Path dir = directory.toAbsolutePath().normalize();
        createPrivateDirectories(dir);
        Path file = dir.resolve(DATABASE_FILE);
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            PrivateFiles.refuseLink(dir.resolve(DATABASE_FILE + suffix));
        }
        // Created here, owner-only, before SQLite opens it: SQLite would create it with the
        // umask's permissions, and gives its -wal and -shm files the database file's own.
        PrivateFiles.create(file);
        SQLiteConfig config = new SQLiteConfig();
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.enforceForeignKeys(true);
        config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
        Connection connection = null;
        try {
            // SQLITE_OPEN_NOFOLLOW: a link planted between the check above and the open is refused too.
            java.util.Properties properties = config.toProperties();
            properties.setProperty(SQLiteConfig.Pragma.OPEN_MODE.pragmaName,
                    Integer.toString(config.getOpenModeFlags() | SQLITE_OPEN_NOFOLLOW));
            // Autocommit stays on: each operation opens and ends its own transaction (Tx), so
            // that no transaction stays open between operations to block other processes.
            connection = new SQLiteConfig(properties).createConnection("jdbc:sqlite:" + file);
            useWriteAheadLog(connection);
            SqliteSchema.migrate(connection, file.toString());
            return new SqliteSessionStore(dir, file, connection);
        } catch (SQLException e) {
            closeQuietly(connection);
            throw new SessionStoreException("cannot open the sessions database " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    /**
     * Switches the database file to write-ahead logging (it stays so for every later
     * connection). The switch needs the file to itself, and SQLite answers {@code SQLITE_BUSY}
     * at once, without its busy handler, while another connection opens the same new file:
     * several processes (or handles) starting together would fail. So the switch is tried
     * again until the busy timeout has passed; set by the driver's connection settings, it was
     * tried once.
     */
    private static void useWriteAheadLog(Connection connection) throws SQLException {
        long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(BUSY_TIMEOUT_MILLIS);
        while (true) {
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("PRAGMA journal_mode = WAL")) {
                String mode = rows.next() ? rows.getString(1) : "";
                if (!"wal".equalsIgnoreCase(mode)) {
                    throw new SQLException("the database cannot use write-ahead logging (journal mode \"" + mode + "\")");
                }
                return;
            } catch (org.sqlite.SQLiteException e) {
                boolean busy = e.getResultCode() == org.sqlite.SQLiteErrorCode.SQLITE_BUSY
                        || e.getResultCode() == org.sqlite.SQLiteErrorCode.SQLITE_LOCKED;
                if (!busy || System.nanoTime() - giveUp > 0) {
                    throw e;
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting to open the database", e);
            }
        }
    }

    /**
     * Where sessions live unless told otherwise: {@code $XDG_DATA_HOME/bellows} when that
     * variable is set to an absolute path, else {@code ~/.local/share/bellows}.
     */
    public static Path defaultDirectory() {
        return defaultDirectory(System.getenv("XDG_DATA_HOME"), Path.of(System.getProperty("user.home")));
    }

    /**
     * The default directory for a given {@code XDG_DATA_HOME} value (null when unset) and home
     * directory: for callers that read the environment themselves (the CLI, tests).
     */
    public static Path defaultDirectory(String xdgDataHome, Path home) {
        Objects.requireNonNull(home, "home");
        // The XDG spec says a relative value is invalid and must be ignored.
        if (xdgDataHome != null && !xdgDataHome.isBlank() && Path.of(xdgDataHome).isAbsolute()) {
            return Path.of(xdgDataHome).resolve("bellows");
        }
        return home.resolve(".local").resolve("share").resolve("bellows");
    }

    /** The directory holding the database and the session locks. */
    public Path directory() {
        return directory;
    }

    /** The database file. */
    public Path databaseFile() {
        return databaseFile;
    }

    /** The same as {@link #open}: this store lets one user at a time open a session anyway. */
    @Override
    public StoredSession openExclusive(String name) {
        return open(name);
    }

    @Override
    public StoredSession open(String name) {
        SessionNames.check(name);
        SessionLock sessionLock = SessionLock.acquire(directory, name);
        try {
            return inTransaction("open session \"" + name + "\"", true, () -> {
                long now = System.currentTimeMillis();
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO sessions (name, created_at, updated_at, plan, metadata) VALUES (?, ?, ?, ?, ?)"
                                + " ON CONFLICT (name) DO NOTHING")) {
                    insert.setString(1, name);
                    insert.setLong(2, now);
                    insert.setLong(3, now);
                    insert.setString(4, SessionJson.planToJson(Plan.empty()));
                    insert.setString(5, "{}");
                    insert.executeUpdate();
                }
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT id, plan, metadata FROM sessions WHERE name = ?")) {
                    select.setString(1, name);
                    try (ResultSet row = select.executeQuery()) {
                        row.next();
                        long id = row.getLong(1);
                        Plan plan = SessionJson.planFromJson(row.getString(2));
                        Map<String, String> metadata = SessionJson.metadataFromJson(row.getString(3));
                        return new SqliteSession(this, sessionLock, id, name, readTurns(id, name), plan, metadata,
                                readWaitingRun(id).orElse(null));
                    }
                }
            });
        } catch (RuntimeException e) {
            sessionLock.close();
            throw e;
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
        return inTransaction("read session \"" + name + "\"", false, () -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(List.copyOf(readTurns(row.getLong(1), name)));
                }
            }
        });
    }

    @Override
    public Optional<List<List<List<Message>>>> exchanges(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", false, () -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(readExchanges(row.getLong(1), name));
                }
            }
        });
    }

    @Override
    public Optional<WaitingRun> waitingRun(String name) {
        SessionNames.check(name);
        return inTransaction("read session \"" + name + "\"", false, () -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT id FROM sessions WHERE name = ?")) {
                select.setString(1, name);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? readWaitingRun(row.getLong(1)) : Optional.<WaitingRun>empty();
                }
            }
        });
    }

    @Override
    public boolean delete(String name) {
        SessionNames.check(name);
        if (find(name).isEmpty()) {
            return false; // no lock file is made for a session that does not exist
        }
        try (SessionLock ignored = SessionLock.acquire(directory, name)) {
            return inTransaction("delete session \"" + name + "\"", true, () -> {
                try (PreparedStatement delete = connection.prepareStatement("DELETE FROM sessions WHERE name = ?")) {
                    delete.setString(1, name);
                    return delete.executeUpdate() > 0;
                }
            });
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (!closed) {
                closed = true;
                closeQuietly(connection);
            }
        }
    }

    @Override
    public String toString() {
        return "SqliteSessionStore[" + databaseFile + "]";
    }

    // --- used by SqliteSession ---

    /**
     * Writes one exchange, in one transaction: its turns, in order (the first marked as the start
     * of an exchange, and the session's count of exchanges raised), and a pending plan.
     */
    void appendTurns(long id, String name, List<List<Message>> turns, Plan pendingPlan) {
        commitExchange(id, name, turns, false, pendingPlan, false, null);
    }

    /**
     * Writes one exchange, in one transaction: its turns, in order (the first marked as the start
     * of an exchange, and the session's count of exchanges raised; none when there are no turns,
     * nor when {@code continuesLast} and the session has an exchange, which they then join),
     * a pending plan, and, when {@code waitingChanged}, the waiting run set to {@code waiting}
     * (null: removed) with its log emptied.
     */
    void commitExchange(long id, String name, List<List<Message>> turns, boolean continuesLast, Plan pendingPlan,
                        boolean waitingChanged, String waiting) {
        inTransaction("store " + (turns.size() == 1 ? "a turn" : turns.size() + " turns") + " of session \"" + name + "\"",
                true, () -> {
            long now = System.currentTimeMillis();
            long first;
            boolean begins;
            try (PreparedStatement next = connection.prepareStatement("SELECT next_seq, exchange_count FROM sessions WHERE id = ?")) {
                next.setLong(1, id);
                try (ResultSet row = next.executeQuery()) {
                    if (!row.next()) {
                        throw new SessionStoreException("session \"" + name + "\" no longer exists in " + databaseFile);
                    }
                    first = row.getLong(1);
                    begins = !continuesLast || row.getInt(2) == 0;
                }
            }
            long seq = first;
            int messages = 0;
            try (PreparedStatement turnRow = connection.prepareStatement(
                    "INSERT INTO turns (session_id, seq, created_at, message_count, begins_exchange)"
                            + " VALUES (?, ?, ?, ?, ?)");
                 PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO messages (session_id, turn_seq, position, role, content, native_parts)"
                            + " VALUES (?, ?, ?, ?, ?, ?)")) {
                for (List<Message> turn : turns) {
                    turnRow.setLong(1, id);
                    turnRow.setLong(2, seq);
                    turnRow.setLong(3, now);
                    turnRow.setInt(4, turn.size());
                    turnRow.setInt(5, begins && seq == first ? 1 : 0);
                    turnRow.executeUpdate();
                    for (int position = 0; position < turn.size(); position++) {
                        Message message = turn.get(position);
                        insert.setLong(1, id);
                        insert.setLong(2, seq);
                        insert.setInt(3, position);
                        insert.setString(4, message.role().wireName());
                        insert.setString(5, Secrets.redact(message.content())); // an echoed key is never stored
                        insert.setString(6, SessionJson.nativePartsToJson(message));
                        insert.executeUpdate();
                    }
                    messages += turn.size();
                    seq++;
                }
            }
            if (!turns.isEmpty()) {
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE sessions SET next_seq = ?, turn_count = turn_count + ?, exchange_count = exchange_count + ?,"
                                + " message_count = message_count + ?, updated_at = ?, plan = coalesce(?, plan)"
                                + " WHERE id = ?")) {
                    update.setLong(1, seq);
                    update.setInt(2, turns.size());
                    update.setInt(3, begins ? 1 : 0);
                    update.setInt(4, messages);
                    update.setLong(5, now);
                    update.setString(6, pendingPlan == null ? null : SessionJson.planToJson(pendingPlan));
                    update.setLong(7, id);
                    update.executeUpdate();
                }
            }
            if (waitingChanged) {
                writeWaiting(id, waiting, now);
            }
            return null;
        });
    }

    /** Sets or removes the waiting run, at once, in one transaction. */
    void writeWaitingRun(long id, String name, String waiting) {
        inTransaction("store the waiting run of session \"" + name + "\"", true, () -> {
            writeWaiting(id, waiting, System.currentTimeMillis());
            return null;
        });
    }

    /** Within a transaction: the waiting run set or removed, its log emptied. */
    private void writeWaiting(long id, String waiting, long now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE sessions SET waiting_run = ?, updated_at = ? WHERE id = ?");
             PreparedStatement delete = connection.prepareStatement("DELETE FROM waiting_log WHERE session_id = ?")) {
            update.setString(1, waiting);
            update.setLong(2, now);
            update.setLong(3, id);
            update.executeUpdate();
            delete.setLong(1, id);
            delete.executeUpdate();
        }
    }

    /** Appends entries to the waiting run's log (which holds {@code after} entries), in one transaction. */
    void appendWaitingLog(long id, String name, int after, List<String> entries) {
        inTransaction("store a step of the waiting run of session \"" + name + "\"", true, () -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO waiting_log (session_id, seq, entry) VALUES (?, ?, ?)")) {
                int seq = after;
                for (String entry : entries) {
                    insert.setLong(1, id);
                    insert.setInt(2, ++seq);
                    insert.setString(3, entry);
                    insert.executeUpdate();
                }
            }
            return null;
        });
    }

    /** The session's waiting run with its log; inside a transaction. */
    private Optional<WaitingRun> readWaitingRun(long id) throws SQLException {
        String state;
        try (PreparedStatement select = connection.prepareStatement("SELECT waiting_run FROM sessions WHERE id = ?")) {
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
                "SELECT entry FROM waiting_log WHERE session_id = ? ORDER BY seq")) {
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
        inTransaction("clear session \"" + name + "\"", true, () -> {
            writeWaiting(id, null, System.currentTimeMillis());
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM turns WHERE session_id = ?");
                 PreparedStatement update = connection.prepareStatement(
                         "UPDATE sessions SET turn_count = 0, exchange_count = 0, message_count = 0, updated_at = ?"
                                 + " WHERE id = ?")) {
                delete.setLong(1, id);
                delete.executeUpdate();
                update.setLong(1, System.currentTimeMillis());
                update.setLong(2, id);
                update.executeUpdate();
            }
            return null;
        });
    }

    void writePlan(long id, String name, Plan plan) {
        writeColumn(id, "plan", SessionJson.planToJson(plan), "store the plan of session \"" + name + "\"");
    }

    void writeMetadata(long id, String name, Map<String, String> metadata) {
        writeColumn(id, "metadata", SessionJson.metadataToJson(metadata), "store the metadata of session \"" + name + "\"");
    }

    private void writeColumn(long id, String column, String value, String what) {
        inTransaction(what, true, () -> {
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE sessions SET " + column + " = ?, updated_at = ? WHERE id = ?")) {
                update.setString(1, value);
                update.setLong(2, System.currentTimeMillis());
                update.setLong(3, id);
                update.executeUpdate();
            }
            return null;
        });
    }

    /** Work done inside one transaction. */
    @FunctionalInterface
    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    /**
     * Runs the work in one transaction on the store's connection, one thread at a time. A
     * write transaction begins IMMEDIATE, taking SQLite's write lock at once (waiting up to the
     * busy timeout for another process's): a transaction that read first and then wanted to
     * write could otherwise fail with SQLITE_BUSY instead of waiting. Autocommit stays on
     * between operations, so no transaction is left open to block other processes.
     */
    private <T> T inTransaction(String what, boolean write, SqlWork<T> work) {
        synchronized (lock) {
            ensureOpen();
            try {
                execute(write ? "BEGIN IMMEDIATE" : "BEGIN");
                T result = work.run();
                execute("COMMIT");
                return result;
            } catch (SQLException e) {
                rollbackQuietly();
                throw failure(what, e);
            } catch (RuntimeException e) {
                rollbackQuietly();
                throw e;
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    // --- reading ---

    /** The session's turns, oldest first. */
    private List<List<Message>> readTurns(long id, String name) throws SQLException {
        List<List<Message>> turns = new ArrayList<>();
        readExchanges(id, name).forEach(turns::addAll);
        return turns;
    }

    /**
     * The session's turns grouped by exchange, oldest first; checks that every turn holds the
     * messages it says. Turns before the first marked start (none are written so) form one.
     */
    private List<List<List<Message>>> readExchanges(long id, String name) throws SQLException {
        List<List<List<Message>>> exchanges = new ArrayList<>();
        List<List<Message>> turns = null;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT t.seq, t.message_count, t.begins_exchange, m.role, m.content, m.native_parts FROM turns t"
                        + " LEFT JOIN messages m ON m.session_id = t.session_id AND m.turn_seq = t.seq"
                        + " WHERE t.session_id = ? ORDER BY t.seq, m.position")) {
            select.setLong(1, id);
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
                        if (turns == null || rows.getInt(3) == 1) {
                            turns = new ArrayList<>();
                            exchanges.add(turns);
                        }
                    }
                    String role = rows.getString(4);
                    if (role != null) {
                        current.add(SessionJson.message(role(role, name), rows.getString(5), rows.getString(6)));
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
            // Cannot happen through this class (one transaction per turn); a damaged or edited file.
            throw new SessionStoreException("session \"" + name + "\" in " + databaseFile + " is damaged: turn " + seq
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

    private List<SessionInfo> query(String what, String where, String name) {
        return inTransaction(what, false, () -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT name, created_at, updated_at, turn_count, message_count, plan, metadata, exchange_count"
                            + " FROM sessions" + where + " ORDER BY name")) {
                if (name != null) {
                    select.setString(1, name);
                }
                List<SessionInfo> infos = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        infos.add(new SessionInfo(rows.getString(1), Instant.ofEpochMilli(rows.getLong(2)),
                                Instant.ofEpochMilli(rows.getLong(3)), rows.getInt(8), rows.getInt(4), rows.getInt(5),
                                SessionJson.planFromJson(rows.getString(6)),
                                SessionJson.metadataFromJson(rows.getString(7))));
                    }
                }
                return infos;
            }
        });
    }

    // --- plumbing ---

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this session store is closed (" + databaseFile + ")");
        }
    }

    private SessionStoreException failure(String what, SQLException e) {
        return new SessionStoreException("cannot " + what + " in " + databaseFile + ": " + e.getMessage(), e);
    }

    private void rollbackQuietly() {
        try {
            execute("ROLLBACK");
        } catch (SQLException ignored) {
            // the first error is the one to report
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // nothing left to do with it
            }
        }
    }

    /** SQLite's flag refusing a database path that is a symbolic link (not in the driver's enum). */
    private static final int SQLITE_OPEN_NOFOLLOW = 0x01000000;

    private static void createPrivateDirectories(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                return;
            }
            Path parent = dir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectory(dir);
                }
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(dir)) {
                    throw e;
                }
            }
        } catch (IOException e) {
            throw new SessionStoreException("cannot create the sessions directory " + dir + ": " + e, e);
        }
    }
}
