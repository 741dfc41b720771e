package dev.bellows.sessions.postgres;

import dev.bellows.memory.SessionStoreException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The tables, migrated when a store opens. Several JVMs may start at once: the migration runs
 * in one transaction under a transaction-scoped advisory lock, so exactly one of them applies
 * each step and the others then find the schema current. Tables are prefixed {@code bellows_}
 * because they usually share a database with other applications. A message's content is
 * {@code bytea} holding UTF-8, not {@code text}: PostgreSQL's text cannot hold U+0000, which a
 * tool's observation (a binary file read) can; {@code convert_from(content, 'UTF8')} reads it.
 */
final class PostgresSchema {

    /** An arbitrary constant naming the migration lock ("bellows" in ASCII). */
    private static final long MIGRATION_LOCK = 0x62656c6c6f7773L;

    /** Entry {@code i} migrates from version {@code i} to {@code i + 1}; never edit a shipped one. */
    private static final List<List<String>> MIGRATIONS = List.of(
            List.of(
            """
            CREATE TABLE bellows_sessions (
                id            bigserial   PRIMARY KEY,
                name          text        NOT NULL UNIQUE,
                created_at    timestamptz NOT NULL DEFAULT now(),
                updated_at    timestamptz NOT NULL DEFAULT now(),
                plan          text        NOT NULL,
                metadata      jsonb       NOT NULL DEFAULT '{}',
                turn_count    integer     NOT NULL DEFAULT 0,
                message_count integer     NOT NULL DEFAULT 0,
                next_seq      bigint      NOT NULL DEFAULT 1,
                generation    bigint      NOT NULL DEFAULT 0
            )""",
            """
            CREATE TABLE bellows_turns (
                session_id    bigint      NOT NULL REFERENCES bellows_sessions (id) ON DELETE CASCADE,
                seq           bigint      NOT NULL,
                created_at    timestamptz NOT NULL DEFAULT now(),
                message_count integer     NOT NULL,
                PRIMARY KEY (session_id, seq)
            )""",
            """
            CREATE TABLE bellows_messages (
                session_id bigint  NOT NULL,
                turn_seq   bigint  NOT NULL,
                position   integer NOT NULL,
                role       text    NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
                content    bytea   NOT NULL,
                native_parts text,
                PRIMARY KEY (session_id, turn_seq, position),
                FOREIGN KEY (session_id, turn_seq) REFERENCES bellows_turns (session_id, seq) ON DELETE CASCADE
            )"""),
            // Version 2: the exchanges (requests) are recorded as they are written, no longer
            // guessed from whether a turn begins with the user's message. A turn marks the start
            // of its exchange; the session counts them. Turns written before are marked by the
            // old guess, the counts unchanged, except that a session's first turn always starts
            // one (every turn belongs to a request, even when Java code stored it).
            List.of(
                    "ALTER TABLE bellows_turns ADD COLUMN begins_exchange boolean NOT NULL DEFAULT false",
                    "ALTER TABLE bellows_sessions ADD COLUMN exchange_count integer NOT NULL DEFAULT 0",
                    """
                    UPDATE bellows_turns t SET begins_exchange = true
                    WHERE t.seq = (SELECT min(f.seq) FROM bellows_turns f WHERE f.session_id = t.session_id)
                       OR EXISTS (SELECT 1 FROM bellows_messages m WHERE m.session_id = t.session_id
                                  AND m.turn_seq = t.seq AND m.position = 0 AND m.role = 'user')""",
                    """
                    UPDATE bellows_sessions s SET exchange_count =
                        (SELECT count(*) FROM bellows_turns t WHERE t.session_id = s.id AND t.begins_exchange)"""),
            // Version 3: a run that waits for decisions on its tool calls (approvals): its state,
            // and the log of what resuming it did, an entry a row, each written in a transaction
            // of its own before the resume goes on.
            List.of(
                    "ALTER TABLE bellows_sessions ADD COLUMN waiting_run text",
                    """
                    CREATE TABLE bellows_waiting_log (
                        session_id bigint  NOT NULL REFERENCES bellows_sessions (id) ON DELETE CASCADE,
                        seq        integer NOT NULL,
                        entry      text    NOT NULL,
                        PRIMARY KEY (session_id, seq)
                    )"""));

    static final int CURRENT = MIGRATIONS.size();

    private PostgresSchema() {
    }

    /** Migrates to {@link #CURRENT} in one transaction; the connection is not in autocommit mode. */
    static void migrate(Connection connection, String where) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
            statement.execute("CREATE TABLE IF NOT EXISTS bellows_schema_version (version integer NOT NULL)");
            int version;
            try (ResultSet row = statement.executeQuery("SELECT max(version) FROM bellows_schema_version")) {
                row.next();
                version = row.getInt(1);
            }
            if (version > CURRENT) {
                throw new SessionStoreException("the sessions tables in " + where + " have schema version " + version
                        + ", newer than this Bellows knows (" + CURRENT + "): upgrade Bellows");
            }
            for (int next = version; next < CURRENT; next++) {
                for (String sql : MIGRATIONS.get(next)) {
                    statement.execute(sql);
                }
                statement.execute("INSERT INTO bellows_schema_version (version) VALUES (" + (next + 1) + ")");
            }
        }
    }
}
