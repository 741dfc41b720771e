package dev.bellows.sessions.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.StoredSession;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database written by the version before exchanges were recorded (schema 1) opens with this
 * code, keeps every turn, and counts its requests as that version showed them. The database
 * is made here with schema 1's SQL as it shipped, and rows as that version wrote them.
 */
class SqliteSchemaMigrationTest {

    /** Schema 1, as shipped: never change this copy. */
    private static final List<String> SCHEMA_1 = List.of(
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
            )""",
            "PRAGMA user_version = 1");

    @TempDir
    Path dir;

    // Two runs of the agent loop: the first took two iterations, the second one.
    private static final List<Message> RUN_1_STEP_1 = List.of(Message.user("What is 17 * 23?"),
            Message.assistant("<tool>{\"tool_name\": \"calc\"}</tool>"), Message.user("391"));
    private static final List<Message> RUN_1_STEP_2 = List.of(Message.assistant("<tool>task_completion</tool>"));
    private static final List<Message> RUN_2_STEP_1 = List.of(Message.user("And 2 + 2?"), Message.assistant("4"));
    // What Java code could store with schema 1: a turn that begins with the model's answer.
    private static final List<Message> ODD_FIRST = List.of(Message.assistant("a greeting the application stored"));

    @Test
    void aSchema1DatabaseOpensWithEveryTurnAndItsRequestsCounted() throws Exception {
        Plan plan = new Plan(List.of(new PlanStep("read", PlanStatus.IN_PROGRESS)));
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("sessions.db"));
             Statement statement = db.createStatement()) {
            for (String sql : SCHEMA_1) {
                statement.execute(sql);
            }
            writeSession(db, 1, "math", plan, List.of(RUN_1_STEP_1, RUN_1_STEP_2, RUN_2_STEP_1));
            writeSession(db, 2, "odd", Plan.empty(), List.of(ODD_FIRST, RUN_2_STEP_1));
            writeSession(db, 3, "empty", Plan.empty(), List.of());
        }

        try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
            assertThat(userVersion()).isEqualTo(SqliteSchema.CURRENT).isEqualTo(3);
            List<SessionInfo> sessions = store.list();
            assertThat(sessions).extracting(SessionInfo::name).containsExactly("empty", "math", "odd");
            assertThat(sessions).extracting(SessionInfo::requests).containsExactly(0, 2, 2);
            assertThat(sessions).extracting(SessionInfo::turns).containsExactly(0, 3, 2);
            assertThat(sessions.get(1).plan()).isEqualTo(plan);
            assertThat(store.exchanges("math")).contains(List.of(List.of(RUN_1_STEP_1, RUN_1_STEP_2), List.of(RUN_2_STEP_1)));
            assertThat(store.exchanges("odd")).contains(List.of(List.of(ODD_FIRST), List.of(RUN_2_STEP_1)));

            // New exchanges are recorded as written, after the migrated ones.
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
        try (SqliteSessionStore again = SqliteSessionStore.open(dir)) {
            assertThat(userVersion()).as("migrated once").isEqualTo(3);
            assertThat(again.find("math").orElseThrow().requests()).isEqualTo(3);
        }
    }

    /** Schema 2's migration, as shipped: never change this copy. */
    private static final List<String> SCHEMA_2 = List.of(
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
                (SELECT count(*) FROM turns t WHERE t.session_id = sessions.id AND t.begins_exchange = 1)""",
            "PRAGMA user_version = 2");

    @Test
    void aSchema2DatabaseOpensWithNothingWaitingAndThenKeepsAWaitingRun() throws Exception {
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("sessions.db"));
             Statement statement = db.createStatement()) {
            for (String sql : SCHEMA_1) {
                statement.execute(sql);
            }
            writeSession(db, 1, "math", Plan.empty(), List.of(RUN_1_STEP_1, RUN_1_STEP_2));
            for (String sql : SCHEMA_2) {
                statement.execute(sql);
            }
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
            assertThat(userVersion()).isEqualTo(3);
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

    /** A plan as schema 1's store wrote it (the steps' wire names), from the test's own copy of the form. */
    private static String planJson(Plan plan) {
        StringBuilder json = new StringBuilder("{\"steps\":[");
        for (PlanStep step : plan.steps()) {
            json.append(json.charAt(json.length() - 1) == '[' ? "" : ",").append("{\"description\":\"")
                    .append(step.description()).append("\",\"status\":\"")
                    .append(step.status().name().toLowerCase(java.util.Locale.ROOT)).append("\"}");
        }
        return json.append("]}").toString();
    }

    /** Rows as schema 1's store wrote them: turns, their messages, the session's counters. */
    private static void writeSession(Connection db, long id, String name, Plan plan, List<List<Message>> turns)
            throws Exception {
        int messages = turns.stream().mapToInt(List::size).sum();
        try (PreparedStatement session = db.prepareStatement("INSERT INTO sessions (id, name, created_at, updated_at,"
                + " plan, metadata, turn_count, message_count, next_seq) VALUES (?, ?, 1000, 2000, ?, '{}', ?, ?, ?)")) {
            session.setLong(1, id);
            session.setString(2, name);
            session.setString(3, planJson(plan));
            session.setInt(4, turns.size());
            session.setInt(5, messages);
            session.setLong(6, turns.size() + 1L);
            session.executeUpdate();
        }
        for (int seq = 1; seq <= turns.size(); seq++) {
            List<Message> turn = turns.get(seq - 1);
            try (PreparedStatement row = db.prepareStatement(
                    "INSERT INTO turns (session_id, seq, created_at, message_count) VALUES (?, ?, 1500, ?)")) {
                row.setLong(1, id);
                row.setLong(2, seq);
                row.setInt(3, turn.size());
                row.executeUpdate();
            }
            for (int position = 0; position < turn.size(); position++) {
                try (PreparedStatement message = db.prepareStatement("INSERT INTO messages (session_id, turn_seq,"
                        + " position, role, content, native_parts) VALUES (?, ?, ?, ?, ?, NULL)")) {
                    message.setLong(1, id);
                    message.setLong(2, seq);
                    message.setInt(3, position);
                    message.setString(4, turn.get(position).role().wireName());
                    message.setString(5, turn.get(position).content());
                    message.executeUpdate();
                }
            }
        }
    }

    private int userVersion() throws Exception {
        assertThat(Files.exists(dir.resolve("sessions.db"))).isTrue();
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("sessions.db"));
             Statement statement = db.createStatement();
             ResultSet row = statement.executeQuery("PRAGMA user_version")) {
            row.next();
            return row.getInt(1);
        }
    }
}
