package dev.bellows.sessions.jdbc;

import dev.bellows.memory.SessionInUseException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * What one database does its own way, under the one {@link JdbcSessionStore}: its SQL pieces,
 * how a transaction is run (one shared connection, or one borrowed per transaction), how a
 * session is kept to one user, and how a message's content and a timestamp are stored. The
 * schema is the dialect's too: it is migrated before the store is made.
 *
 * <p>An implementation is thread-safe.
 */
public interface SqlDialect {

    /** Where the sessions are, for messages (a file, a JDBC URL without its query); never a secret. */
    String where();

    /** The SQL pieces in which this database differs. */
    SqlText sql();

    /**
     * Runs the work in one transaction, committed when it returns and rolled back when it
     * throws. A write transaction excludes other writers of the rows it locks for as long as
     * it runs; a read sees one snapshot.
     */
    <T> T inTransaction(boolean write, SqlWork<T> work) throws SQLException;

    /**
     * The lock every handle of the session holds while it is open, taken before it opens (and
     * around a delete), or null where handles are shared. A store whose handles lock serves a
     * handle's reads from memory, since nobody else writes its session meanwhile.
     *
     * @throws SessionInUseException when another handle, here or elsewhere, holds it
     */
    AutoCloseable lockHandle(String name);

    /**
     * The further lock of a handle opened with {@code openExclusive}, or null when
     * {@link #lockHandle} already keeps every other handle out.
     *
     * @param id the session's row id
     * @throws SessionInUseException when another exclusive handle holds it
     */
    AutoCloseable lockExclusive(String name, long id) throws SQLException;

    /** Binds a message's content, which may hold any character (U+0000 included). */
    default void setContent(PreparedStatement statement, int index, String content) throws SQLException {
        statement.setString(index, content);
    }

    /** Reads a message's content as {@link #setContent} stored it. */
    default String content(ResultSet row, int index) throws SQLException {
        return row.getString(index);
    }

    /** Reads a timestamp column (as {@link SqlText#now()} wrote it). */
    default Instant instant(ResultSet row, int index) throws SQLException {
        return row.getTimestamp(index).toInstant();
    }

    /** Lets go of what the dialect holds (a connection it owns); called once, when the store closes. */
    void close();
}
