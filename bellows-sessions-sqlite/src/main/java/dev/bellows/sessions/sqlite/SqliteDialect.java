package dev.bellows.sessions.sqlite;

import dev.bellows.sessions.jdbc.SqlDialect;
import dev.bellows.sessions.jdbc.SqlText;
import dev.bellows.sessions.jdbc.SqlWork;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * SQLite's ways: one connection, used by one thread at a time, in autocommit mode between
 * transactions, so that no transaction stays open to block other processes; a write
 * transaction begins {@code IMMEDIATE}, taking SQLite's write lock at once (waiting up to the
 * busy timeout for another process's): a transaction that read first and then wanted to write
 * could otherwise fail with {@code SQLITE_BUSY} instead of waiting. That lock excludes every
 * other writer, so no row lock is needed. A session has one handle at a time: its
 * {@link SessionLock} file.
 */
final class SqliteDialect implements SqlDialect {

    /**
     * Timestamps are milliseconds since the epoch, SQLite's own clock (kept in whole
     * milliseconds, so the rounding is exact); from julianday, not {@code unixepoch('subsec')},
     * which needs SQLite 3.42 and an application may bring an older sqlite-jdbc. Metadata is
     * merged with {@code json_patch} (RFC 7396; its values are strings, never null, so it only
     * adds and replaces). Handles are locked, never read again after opening, so the generation
     * is a constant.
     */
    private static final SqlText SQL = new SqlText("",
            "CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)", "", "metadata",
            "json_patch(metadata, ?)", "0", "");

    private final Path directory;
    private final Path databaseFile;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private final Connection connection;
    /** Guarded by {@link #lock}. */
    private boolean closed;

    SqliteDialect(Path directory, Path databaseFile, Connection connection) {
        this.directory = directory;
        this.databaseFile = databaseFile;
        this.connection = connection;
    }

    @Override
    public String where() {
        return databaseFile.toString();
    }

    @Override
    public SqlText sql() {
        return SQL;
    }

    @Override
    public <T> T inTransaction(boolean write, SqlWork<T> work) throws SQLException {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("this session store is closed (" + databaseFile + ")");
            }
            try {
                execute(write ? "BEGIN IMMEDIATE" : "BEGIN");
                T result = work.run(connection);
                execute("COMMIT");
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    execute("ROLLBACK");
                } catch (SQLException ignored) {
                    // the first error is the one to report
                }
                throw e;
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Override
    public AutoCloseable lockHandle(String name) {
        return SessionLock.acquire(directory, name);
    }

    @Override
    public AutoCloseable lockExclusive(String name, long id) {
        return null;                    // every handle is exclusive already
    }

    @Override
    public Instant instant(ResultSet row, int index) throws SQLException {
        return Instant.ofEpochMilli(row.getLong(index));
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (!closed) {
                closed = true;
                SqliteSessionStore.closeQuietly(connection);
            }
        }
    }
}
