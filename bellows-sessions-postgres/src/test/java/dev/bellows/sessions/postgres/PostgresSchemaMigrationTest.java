package dev.bellows.sessions.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tables written by the version before exchanges were recorded (schema 1) open with this code,
 * keep every turn, and count their requests as that version showed them. They are made here
 * with schema 1's SQL as it shipped, on a real server, and rows as that version wrote them.
 */
class PostgresSchemaMigrationTest {

    /** Schema 1, as shipped: never change this copy. */
    private static final List<String> SCHEMA_1 = List.of(
            "CREATE TABLE bellows_schema_version (version integer NOT NULL)",
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
            )""",
            "INSERT INTO bellows_schema_version (version) VALUES (1)");

    private static final List<Message> RUN_1_STEP_1 = List.of(Message.user("What is 17 * 23?"),
            Message.assistant("<tool>{\"tool_name\": \"calc\"}</tool>"), Message.user("391"));
    private static final List<Message> RUN_1_STEP_2 = List.of(Message.assistant("<tool>task_completion</tool>"));
    private static final List<Message> RUN_2_STEP_1 = List.of(Message.user("And 2 + 2?"), Message.assistant("4"));
    private static final List<Message> ODD_FIRST = List.of(Message.assistant("a greeting the application stored"));

    @Test
    void schema1TablesOpenWithEveryTurnAndTheirRequestsCounted() throws Exception {
        String url = EmbeddedPostgres.shared().newDatabase();
        try (Connection db = DriverManager.getConnection(url, "postgres", "");
             Statement statement = db.createStatement()) {
            for (String sql : SCHEMA_1) {
                statement.execute(sql);
            }
            writeSession(db, 1, "math", List.of(RUN_1_STEP_1, RUN_1_STEP_2, RUN_2_STEP_1));
            writeSession(db, 2, "odd", List.of(ODD_FIRST, RUN_2_STEP_1));
            writeSession(db, 3, "empty", List.of());
            statement.execute("SELECT setval('bellows_sessions_id_seq', 3)");
        }

        try (PostgresSessionStore store = PostgresSessionStore.open(url, "postgres", null)) {
            assertThat(version(url)).isEqualTo(PostgresSchema.CURRENT).isEqualTo(3);
            List<SessionInfo> sessions = store.list();
            assertThat(sessions).extracting(SessionInfo::name).containsExactly("empty", "math", "odd");
            assertThat(sessions).extracting(SessionInfo::requests).containsExactly(0, 2, 2);
            assertThat(sessions).extracting(SessionInfo::turns).containsExactly(0, 3, 2);
            assertThat(store.exchanges("math")).contains(List.of(List.of(RUN_1_STEP_1, RUN_1_STEP_2), List.of(RUN_2_STEP_1)));
            assertThat(store.exchanges("odd")).contains(List.of(List.of(ODD_FIRST), List.of(RUN_2_STEP_1)));

            List<Message> systemFirst = List.of(Message.system("terse"), Message.user("3 + 3?"));
            List<Message> observation = List.of(Message.user("observation"), Message.assistant("6"));
            try (StoredSession math = store.open("math")) {
                assertThat(math.turns()).containsExactly(RUN_1_STEP_1, RUN_1_STEP_2, RUN_2_STEP_1);
                math.beginExchange();
                math.append(systemFirst);
                math.append(observation);
                math.commitExchange();
            }
            assertThat(store.find("math").orElseThrow().requests()).isEqualTo(3);
            assertThat(store.exchanges("math").orElseThrow()).last().isEqualTo(List.of(systemFirst, observation));
        }
        try (PostgresSessionStore again = PostgresSessionStore.open(url, "postgres", null)) {
            assertThat(version(url)).as("migrated once").isEqualTo(3);
            assertThat(again.find("math").orElseThrow().requests()).isEqualTo(3);
        }
    }

    /** Schema 2's migration, as shipped: never change this copy. */
    private static final List<String> SCHEMA_2 = List.of(
            "ALTER TABLE bellows_turns ADD COLUMN begins_exchange boolean NOT NULL DEFAULT false",
            "ALTER TABLE bellows_sessions ADD COLUMN exchange_count integer NOT NULL DEFAULT 0",
            """
            UPDATE bellows_turns t SET begins_exchange = true
            WHERE t.seq = (SELECT min(f.seq) FROM bellows_turns f WHERE f.session_id = t.session_id)
               OR EXISTS (SELECT 1 FROM bellows_messages m WHERE m.session_id = t.session_id
                          AND m.turn_seq = t.seq AND m.position = 0 AND m.role = 'user')""",
            """
            UPDATE bellows_sessions s SET exchange_count =
                (SELECT count(*) FROM bellows_turns t WHERE t.session_id = s.id AND t.begins_exchange)""",
            "INSERT INTO bellows_schema_version (version) VALUES (2)");

    @Test
    void schema2TablesOpenWithNothingWaitingAndThenKeepAWaitingRun() throws Exception {
        String url = EmbeddedPostgres.shared().newDatabase();
        try (Connection db = DriverManager.getConnection(url, "postgres", "");
             Statement statement = db.createStatement()) {
            for (String sql : SCHEMA_1) {
                statement.execute(sql);
            }
            writeSession(db, 1, "math", List.of(RUN_1_STEP_1, RUN_1_STEP_2));
            statement.execute("SELECT setval('bellows_sessions_id_seq', 1)");
            for (String sql : SCHEMA_2) {
                statement.execute(sql);
            }
        }
        try (PostgresSessionStore store = PostgresSessionStore.open(url, "postgres", null)) {
            assertThat(version(url)).isEqualTo(3);
            assertThat(store.waitingRun("math")).isEmpty();
            assertThat(store.find("math").orElseThrow().requests()).isEqualTo(1);
            try (StoredSession math = store.open("math")) {
                assertThat(math.turns()).containsExactly(RUN_1_STEP_1, RUN_1_STEP_2);
                math.waitingRun("{\"waiting\": 1}");
                math.logWaitingRun(List.of("{\"started\": \"call_3_1\"}"));
            }
            assertThat(store.waitingRun("math")).contains(new dev.bellows.memory.WaitingRun("{\"waiting\": 1}",
                    List.of("{\"started\": \"call_3_1\"}")));
        }
    }

    private static void writeSession(Connection db, long id, String name, List<List<Message>> turns) throws Exception {
        try (PreparedStatement session = db.prepareStatement("INSERT INTO bellows_sessions (id, name, plan, turn_count,"
                + " message_count, next_seq) VALUES (?, ?, ?, ?, ?, ?)")) {
            session.setLong(1, id);
            session.setString(2, name);
            session.setString(3, "{\"steps\":[]}");   // an empty plan, as schema 1 wrote it
            session.setInt(4, turns.size());
            session.setInt(5, turns.stream().mapToInt(List::size).sum());
            session.setLong(6, turns.size() + 1L);
            session.executeUpdate();
        }
        for (int seq = 1; seq <= turns.size(); seq++) {
            List<Message> turn = turns.get(seq - 1);
            try (PreparedStatement row = db.prepareStatement(
                    "INSERT INTO bellows_turns (session_id, seq, message_count) VALUES (?, ?, ?)")) {
                row.setLong(1, id);
                row.setLong(2, seq);
                row.setInt(3, turn.size());
                row.executeUpdate();
            }
            for (int position = 0; position < turn.size(); position++) {
                try (PreparedStatement message = db.prepareStatement("INSERT INTO bellows_messages (session_id,"
                        + " turn_seq, position, role, content) VALUES (?, ?, ?, ?, ?)")) {
                    message.setLong(1, id);
                    message.setLong(2, seq);
                    message.setInt(3, position);
                    message.setString(4, turn.get(position).role().wireName());
                    message.setBytes(5, turn.get(position).content().getBytes(StandardCharsets.UTF_8));
                    message.executeUpdate();
                }
            }
        }
    }

    private static int version(String url) throws Exception {
        try (Connection db = DriverManager.getConnection(url, "postgres", "");
             Statement statement = db.createStatement();
             ResultSet row = statement.executeQuery("SELECT max(version) FROM bellows_schema_version")) {
            row.next();
            return row.getInt(1);
        }
    }
}
