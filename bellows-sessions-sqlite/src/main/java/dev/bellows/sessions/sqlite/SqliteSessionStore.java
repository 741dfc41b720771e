package dev.bellows.sessions.sqlite;

import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.provider.Message;
import dev.bellows.sessions.jdbc.JdbcSessionStore;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
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
 * <p>Thread-safe: one connection, used by one thread at a time. The store is bellows-sessions-jdbc's
 * {@link JdbcSessionStore} on SQLite's dialect.
 */
public final class SqliteSessionStore implements SessionStore {

    static final int BUSY_TIMEOUT_MILLIS = 30_000;
    private static final String DATABASE_FILE = "sessions.db";

    private final Path directory;
    private final Path databaseFile;
    private final JdbcSessionStore sessions;

    private SqliteSessionStore(Path directory, Path databaseFile, Connection connection) {
        this.directory = directory;
        this.databaseFile = databaseFile;
        this.sessions = new JdbcSessionStore(new SqliteDialect(directory, databaseFile, connection));
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
        return sessions.openExclusive(name);
    }

    @Override
    public StoredSession open(String name) {
        return sessions.open(name);
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

    @Override
    public void close() {
        sessions.close();
    }

    @Override
    public String toString() {
        return "SqliteSessionStore[" + databaseFile + "]";
    }

    // --- plumbing ---

    static void closeQuietly(Connection connection) {
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
