package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aAgentTool;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.sessions.postgres.EmbeddedPostgres;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --session-store} end to end, through the CLI's main entry: {@code run --session},
 * {@code sessions}, {@code sessions show}, {@code chat} resuming, against a {@link MockLlmServer}
 * on 127.0.0.1 and a real PostgreSQL server (the one bellows-sessions-postgres's tests start),
 * each test on a fresh database. The URL reaches the CLI by flag, variable and config file.
 */
class PostgresSessionsTest {

    private static final String SECRET = "pg-S3CR3T-pass-0000aaaa";

    @TempDir
    Path dir;

    private String database;
    private int port;

    @BeforeEach
    void newDatabase() {
        EmbeddedPostgres server = EmbeddedPostgres.shared();
        String jdbc = server.newDatabase();
        database = jdbc.substring(jdbc.lastIndexOf('/') + 1);
        port = server.port();
    }

    /** libpq's form, with the user (the test server trusts it; no password needed). */
    private String url() {
        return "postgresql://postgres@127.0.0.1:" + port + "/" + database;
    }

    /** Runs bellows with that environment, HOME the test's directory. */
    private Cli.Run bellows(Map<String, String> env, String stdin, String... args) {
        Map<String, String> withHome = new HashMap<>(env);
        withHome.put("HOME", dir.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), out,
                err, false, new Host(withHome, dir, Interrupts.NONE, false)).execute(args);
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Cli.Run bellows(String... args) {
        return bellows(Map.of(), "", args);
    }

    private static List<String> run(MockLlmServer server, String... rest) {
        List<String> args = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock"));
        args.addAll(List.of(rest));
        return args;
    }

    @Test
    void runSessionsShowAndChatKeepTheConversationInPostgres() throws IOException {
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.PLAN, complete("391"))) {
            Cli.Run first = bellows(run(server, "--session", "math", "--session-store", url(), "What is 17 * 23?")
                    .toArray(String[]::new));
            assertThat(first.status()).as(first.err()).isZero();
            assertThat(first.out()).isEqualTo("391\n");
        }
        assertThat(Files.exists(dir.resolve(".local"))).as("no SQLite data directory was made").isFalse();

        // The variable names the store; the password comes from PGPASSWORD (the server trusts the user anyway).
        Map<String, String> env = Map.of(SessionStoreLocation.ENV, "jdbc:postgresql://127.0.0.1:" + port + "/" + database
                + "?user=postgres", "PGPASSWORD", SECRET);
        try (MockLlmServer server = RunCommandTest.server(complete("392"))) {
            Cli.Run second = bellows(env, "", run(server, "--session", "math", "And one more?").toArray(String[]::new));
            assertThat(second.status()).as(second.err()).isZero();
            assertThat(second.out()).isEqualTo("392\n");
            String sent = RunCommandTest.messages(server.requests().getFirst()).toString();
            assertThat(sent).contains("What is 17 * 23?").contains("And one more?").contains("[>] read");
            assertThat(second.err()).doesNotContain(SECRET);
        }

        Cli.Run list = bellows("sessions", "--session-store", url());
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).startsWith("NAME  REQUESTS  STEPS  UPDATED");
        assertThat(list.out().lines().skip(1).toList()).singleElement().asString()
                .as("two requests, answered in three steps").startsWith("math         2      3  ").endsWith("  mock");
        Cli.Run show = bellows(env, "", "sessions", "show", "math");
        assertThat(show.status()).as(show.err()).isZero();
        assertThat(show.out()).contains("session:   math\n").contains("requests:  2 (3 steps, 6 messages)\n")
                .contains("model:     mock\n").contains("plan:\n  [>] read\n")
                .contains("--- request 1, step 2 ---\n[assistant]\n")
                .contains("--- request 2, step 1 ---\n[user]\nAnd one more?\n");

        // chat, with the store from a config file, resumes the session and adds to it
        Files.writeString(dir.resolve("bellows.json"), "{\"session_store\": \"" + url() + "\"}");
        try (MockLlmServer server = RunCommandTest.server(complete("393"))) {
            Cli.Run chat = bellows(Map.of(), "and now?\n", "chat", "--base-url", server.baseUrl().toString(),
                    "--session", "math", "--data-dir", dir.resolve("data").toString());
            assertThat(chat.status()).as(chat.err()).isZero();
            assertThat(chat.out()).isEqualTo("(session math: 2 requests so far)\n393\n");
            assertThat(RunCommandTest.messages(server.requests().getFirst()).toString()).contains("And one more?");
        }
        Cli.Run after = bellows("sessions");
        assertThat(after.out().lines().skip(1).toList()).singleElement().asString().startsWith("math         3      4  ");

        // "sqlite" overrides the config file: the data directory, where there is nothing
        Cli.Run local = bellows("sessions", "--session-store", "sqlite", "--data-dir", dir.resolve("empty").toString());
        assertThat(local.status()).isZero();
        assertThat(local.err()).startsWith("no sessions in " + dir.resolve("empty"));

        Cli.Run delete = bellows("sessions", "delete", "math");
        assertThat(delete.status()).as(delete.err()).isZero();
        assertThat(bellows("sessions").err()).as("named without the user")
                .startsWith("no sessions in postgresql://127.0.0.1:" + port + "/" + database + " ");
    }

    @Test
    void aServerThatCannotBeReachedIsNamedAndNothingIsSentToTheModel() throws IOException {
        int dead = freePort();
        String unreachable = "postgresql://postgres:" + SECRET + "@127.0.0.1:" + dead + "/" + database;
        try (MockLlmServer server = RunCommandTest.server(complete("never"))) {
            Cli.Run run = bellows(run(server, "--session", "math", "--session-store", unreachable, "task")
                    .toArray(String[]::new));
            assertThat(run.status()).as("a store fault, as bellows sessions says it: nothing sent").isEqualTo(1);
            assertThat(run.err()).hasLineCount(1).startsWith("bellows run: --session-store: cannot connect to PostgreSQL at 127.0.0.1:"
                    + dead + ": connection refused").doesNotContain(SECRET);
            assertThat(server.requests()).isEmpty();

            Cli.Run chat = bellows(Map.of(SessionStoreLocation.ENV, unreachable), "hello\n", "chat", "--base-url",
                    server.baseUrl().toString(), "--model", "mock", "--session", "math");
            assertThat(chat.status()).isEqualTo(1);
            assertThat(chat.err()).hasLineCount(1).contains(SessionStoreLocation.ENV + ": cannot connect to PostgreSQL at 127.0.0.1:"
                    + dead).doesNotContain(SECRET);
            assertThat(server.requests()).isEmpty();
        }
        Cli.Run list = bellows(Map.of("PGPASSWORD", SECRET), "", "sessions", "--session-store",
                "jdbc:postgresql://127.0.0.1:" + dead + "/" + database + "?password=" + SECRET);
        assertThat(list.status()).as("the store cannot be read").isEqualTo(1);
        assertThat(list.err()).hasLineCount(1).startsWith("bellows sessions: cannot connect to PostgreSQL at 127.0.0.1:" + dead)
                .doesNotContain(SECRET);
        assertThat(list.out()).isEmpty();

        // What was stored before is still there once the right server is named.
        try (MockLlmServer server = RunCommandTest.server(complete("kept"))) {
            assertThat(bellows(run(server, "--session", "math", "--session-store", url(), "task").toArray(String[]::new))
                    .status()).isZero();
        }
        assertThat(bellows("sessions", "show", "math", "--session-store", unreachable).status()).isEqualTo(1);
        assertThat(bellows("sessions", "show", "math", "--session-store", url()).out()).contains("[user]\ntask\n");
    }

    @Test
    void aDatabaseThatDoesNotExistOrABadUrlIsSaidInWords() {
        Cli.Run missing = bellows("sessions", "--session-store", "postgresql://postgres@127.0.0.1:" + port + "/no_such_db");
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err()).isEqualTo("bellows sessions: PostgreSQL at 127.0.0.1:" + port
                + " has no database \"no_such_db\": create it (createdb), or name another\n");

        Map<String, String> env = new HashMap<>();
        env.put(SessionStoreLocation.ENV, "mysql://u:" + SECRET + "@host/db");
        Cli.Run wrong = bellows(env, "", "sessions");
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.err()).startsWith("bellows sessions: " + SessionStoreLocation.ENV + ": not a PostgreSQL URL")
                .doesNotContain(SECRET);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * a2a.md "A run is a task": {@code bellows serve --a2a} keeps its tasks in PostgreSQL, so the
     * next server on the database (here: the same one restarted) answers GetTask and ListTasks
     * and carries a task that waits for approval on with the task's next message.
     */
    @Test
    void serveA2aKeepsItsTasksInPostgresForTheNextServer() throws Exception {
        Path config = dir.resolve("mcp.json");
        Files.writeString(config, "{\"mcpServers\": {\"files\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.writeValueAsString(ApprovalsCliTest.script()) + "], \"env\": {\"CALL_LOG\": "
                + Cli.MAPPER.writeValueAsString(dir.resolve("calls.jsonl").toString()) + "}}}}");
        String write = "<tool>{\"server_name\": \"files\", \"tool_name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\"}}</tool>";
        MockScript script = MockScript.of(MockTurn.content(complete("Noted.")), MockTurn.content(write),
                MockTurn.content(complete("Wrote a.txt.")));
        try (MockLlmServer model = MockLlmServer.start(script)) {
            String[] serve = {"serve", "--a2a", "--port", "0", "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--session-store", url(), "--mcp-config", config.toString(), "--approve", "files/write_file"};
            String done;
            String waiting;
            try (ServeInProcess server = ServeInProcess.start(dir, Map.of("HOME", dir.toString()), serve);
                 A2aClient a2a = A2aClient.builder(server.url()).connect()) {
                done = a2a.send(Message.of(Role.USER, List.of(Part.text("Note this."))).inTask(null, "c1")).task().id();
                Task asks = a2a.send(Message.of(Role.USER, List.of(Part.text("Write a.txt"))).inTask(null, "c1")).task();
                assertThat(asks.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
                waiting = asks.id();
            }
            try (ServeInProcess server = ServeInProcess.start(dir, Map.of("HOME", dir.toString()), serve);
                 A2aClient a2a = A2aClient.builder(server.url()).connect()) {
                Task first = a2a.getTask(done);
                assertThat(first.status().state()).isEqualTo(TaskState.COMPLETED);
                assertThat(A2aAgentTool.text(first.artifacts().getLast().parts())).isEqualTo("Noted.");
                Task approved = a2a.send(Message.of(Role.USER, List.of(Part.text("approve"))).inTask(waiting, "c1")).task();
                assertThat(approved.status().state()).isEqualTo(TaskState.COMPLETED);
                assertThat(A2aAgentTool.text(approved.artifacts().getLast().parts())).isEqualTo("Wrote a.txt.");
                assertThat(Files.readString(dir.resolve("calls.jsonl"))).contains("a.txt");
                assertThat(a2a.listTasks(new ListTasksRequest(null, "c1", null, null, null, null, null, null)).tasks())
                        .extracting(Task::id).containsExactlyInAnyOrder(done, waiting);
            }
        }
    }
}
