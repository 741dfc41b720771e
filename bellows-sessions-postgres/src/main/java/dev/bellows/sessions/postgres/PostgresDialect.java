package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.sessions.jdbc.SqlDialect;
import dev.bellows.sessions.jdbc.SqlText;
import dev.bellows.sessions.jdbc.SqlWork;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * PostgreSQL's ways: every transaction borrows a connection from the data source and gives it
 * back; a write runs in READ COMMITTED and locks its session's row ({@code SELECT ... FOR
 * UPDATE}), so writers of one session take turns and writers of different sessions never wait
 * for each other; a read runs in REPEATABLE READ, one snapshot. Handles are shared; an
 * exclusive one holds a session-level advisory lock on a connection of its own. A message's
 * content is {@code bytea} holding UTF-8 (see {@link PostgresSchema}).
 */
final class PostgresDialect implements SqlDialect {

    private static final SqlText SQL = new SqlText("bellows_", "now()", " FOR UPDATE", "metadata::text",
            "metadata || ?::jsonb", "generation", ", generation = generation + 1");

    /** The first key of the sessions' advisory locks ("Bell"), the session's id the second. */
    private static final int SESSION_LOCK_CLASS = 0x42656c6c;

    private final DataSource dataSource;
    private final String description;

    PostgresDialect(DataSource dataSource, String description) {
        this.dataSource = dataSource;
        this.description = description;
    }

    @Override
    public String where() {
        return description;
    }

    @Override
    public SqlText sql() {
        return SQL;
    }

    /** Runs the work in one transaction on a connection of its own, committed, or rolled back on any failure. */
    @Override
    public <T> T inTransaction(boolean write, SqlWork<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(write ? Connection.TRANSACTION_READ_COMMITTED
                    : Connection.TRANSACTION_REPEATABLE_READ);
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
        }
    }

    @Override
    public AutoCloseable lockHandle(String name) {
        return null;                    // a session may be open in several JVMs at once
    }

    /**
     * A session-level advisory lock ({@code pg_try_advisory_lock}) on a connection of its own,
     * held until the handle closes. When the holder dies, its connection closes and PostgreSQL
     * releases the lock: no stale locks.
     */
    @Override
    public AutoCloseable lockExclusive(String name, long id) throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            connection.setAutoCommit(true);
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
                lock.setInt(1, SESSION_LOCK_CLASS);
                lock.setInt(2, (int) id);
                try (ResultSet row = lock.executeQuery()) {
                    row.next();
                    if (!row.getBoolean(1)) {
                        throw new SessionInUseException("session \"" + name + "\" is in use: another user of "
                                + description + " has it open for itself; try again when it is done");
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing what failed: the first error is the one to report
            }
            throw e;
        }
        return () -> {
            try (Connection held = connection; PreparedStatement unlock = held.prepareStatement(
                    "SELECT pg_advisory_unlock(?, ?)")) {
                unlock.setInt(1, SESSION_LOCK_CLASS);
                unlock.setInt(2, (int) id);
                unlock.execute();
            }
        };
    }

    @Override
    public void setContent(PreparedStatement statement, int index, String content) throws SQLException {
        statement.setBytes(index, content.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String content(ResultSet row, int index) throws SQLException {
        return new String(row.getBytes(index), StandardCharsets.UTF_8);
    }

    /** Nothing: the data source is the caller's to close. */
    @Override
    public void close() {
    }
}
