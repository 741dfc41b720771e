package dev.bellows.sessions.sqlite;

import dev.bellows.memory.SessionStoreException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The database's tables, brought up to date when a store opens. The version lives in SQLite's
 * {@code user_version}, read and raised in the same write transaction as the migration, so two
 * processes opening a new database at once migrate it exactly once.
 */
final class SqliteSchema {

    /**
     * Each entry migrates from version {@code index} to {@code index + 1}. Never edit one that
     * has shipped: append a new one.
     */
    private static final List<List<String>> MIGRATIONS = List.of(
            List.of(
            """
            CREATE TABLE sessions (
                id            INTEGER PRIMARY KEY,
                name          TEXT    NOT NULL UNIQUE,
                created_at    INTEGER NOT NULL,
                updated_at    INTEGER NOT NULL,
                plan          TEXT    NOT NULL,
                metadata      TEXT    NOT NULL,
                turn_count    INTEGER NOT NULL DEFAULT 0,
                message_count INTEGER NOT NULL DEFAULT 0,
                next_seq      INTEGER NOT NULL DEFAULT 1
            )""",
            """
            CREATE TABLE turns (
                session_id    INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                seq           INTEGER NOT NULL,
                created_at    INTEGER NOT NULL,
                message_count INTEGER NOT NULL,
                PRIMARY KEY (session_id, seq)
            )""",
            """
            CREATE TABLE messages (
                session_id INTEGER NOT NULL,
                turn_seq   INTEGER NOT NULL,
                position   INTEGER NOT NULL,
                role       TEXT    NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
                content    TEXT    NOT NULL,
                native_parts TEXT,
                PRIMARY KEY (session_id, turn_seq, position),
                FOREIGN KEY (session_id, turn_seq) REFERENCES turns (session_id, seq) ON DELETE CASCADE
            )"""),
            // Version 2: the exchanges (requests) are recorded as they are written, no longer
            // guessed from whether a turn begins with the user's message. A turn marks the start
            // of its exchange; the session counts them. Turns written before are marked by the
            // old guess, the counts unchanged, except that a session's first turn always starts
            // one (every turn belongs to a request, even when Java code stored it).
            List.of(
                    "ALTER TABLE turns ADD COLUMN begins_exchange INTEGER NOT NULL DEFAULT 0"
                            + " CHECK (begins_exchange IN (0, 1))",
                    "ALTER TABLE sessions ADD COLUMN exchange_count INTEGER NOT NULL DEFAULT 0",
                    """
                    UPDATE turns SET begins_exchange = 1
                    WHERE seq = (SELECT min(first.seq) FROM turns first WHERE first.session_id = turns.session_id)
                       OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = turns.session_id
                                  AND m.turn_seq = turns.seq AND m.position = 0 AND m.role = 'user')""",
                    """
                    UPDATE sessions SET exchange_count =
                        (SELECT count(*) FROM turns t WHERE t.session_id = sessions.id AND t.begins_exchange = 1)"""),
            // Version 3: a run that waits for decisions on its tool calls (approvals): its state,
            // and the log of what resuming it did, an entry a row, each written in a transaction
            // of its own before the resume goes on.
            List.of(
                    "ALTER TABLE sessions ADD COLUMN waiting_run TEXT",
                    """
                    CREATE TABLE waiting_log (
                        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                        seq        INTEGER NOT NULL,
                        entry      TEXT    NOT NULL,
                        PRIMARY KEY (session_id, seq)
                    )"""));

    /** The version this code writes and reads. */
    static final int CURRENT = MIGRATIONS.size();

    private SqliteSchema() {
    }

    /**
     * Migrates the database to {@link #CURRENT}, in one write transaction.
     *
     * @throws SessionStoreException when the database was made by a newer Bellows
     */
    static void migrate(Connection connection, String where) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("BEGIN IMMEDIATE");
            int version;
            try (ResultSet rows = statement.executeQuery("PRAGMA user_version")) {
                version = rows.next() ? rows.getInt(1) : 0;
            }
            if (version > CURRENT) {
                statement.execute("ROLLBACK");
                throw new SessionStoreException("the sessions database " + where + " has schema version " + version
                        + ", newer than this Bellows knows (" + CURRENT + "): upgrade Bellows, or use another --data-dir");
            }
            for (int next = version; next < CURRENT; next++) {
                for (String sql : MIGRATIONS.get(next)) {
                    statement.execute(sql);
                }
            }
            if (version < CURRENT) {
                statement.execute("PRAGMA user_version = " + CURRENT);
            }
            statement.execute("COMMIT");
        } catch (SQLException e) {
            try (Statement rollback = connection.createStatement()) {
                rollback.execute("ROLLBACK");
            } catch (SQLException ignored) {
                // no transaction was open; the first error is the one to report
            }
            throw e;
        }
    }
}
