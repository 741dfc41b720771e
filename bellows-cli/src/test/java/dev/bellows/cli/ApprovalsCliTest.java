package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cli.md "Approvals", example by example, in process: {@code --approve}, {@code run}'s exit 3 and
 * events, {@code --approve-call} / {@code --deny-call} / {@code --deny-reason}, the usage
 * errors, {@code sessions show}, and {@code chat}'s y / a / n. The tools are an MCP server that
 * records every call it gets (servers/recording-server.js), so what ran is counted there.
 */
class ApprovalsCliTest {

    @TempDir
    Path dir;

    /** The recording server's log: one line per call it got. */
    Path calls() {
        return dir.resolve("calls.jsonl");
    }

    List<String> recorded() throws IOException {
        if (!Files.exists(calls())) {
            return List.of();
        }
        return Files.readAllLines(calls(), StandardCharsets.UTF_8);
    }

    static String script() {
        try {
            return Path.of(ApprovalsCliTest.class.getResource("/servers/recording-server.js").toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A value of the recording server's env, so a secret (cli.md "MCP servers"), when a test plants it. */
    static final String SECRET = "approvals-secret-5e1f0c";
    boolean plantSecret;

    /** An MCP config with the recording server as "files"; its path. */
    Path mcpConfig() throws IOException {
        Path config = dir.resolve("mcp.json");
        Files.writeString(config, "{\"mcpServers\": {\"files\": {\"command\": \"node\", \"args\": [" + Cli.MAPPER
                .writeValueAsString(script()) + "], \"env\": {\"CALL_LOG\": " + Cli.MAPPER.writeValueAsString(
                calls().toString()) + (plantSecret ? ", \"TOKEN\": \"" + SECRET + "\"" : "") + "}}}}");
        return config;
    }

    /** A bellows.json in {@code folder} whose agent "lead" may call "writer", which writes files; its path. */
    static Path team(Path folder) throws IOException {
        return Files.writeString(folder.resolve("bellows.json"), """
                {"agents": {
                  "lead": {"instructions": "You delegate.", "agents": ["writer"]},
                  "writer": {"instructions": "You write files."}
                }}""");
    }

    static String files(String tool, String path) {
        return "<tool>{\"server_name\": \"files\", \"tool_name\": \"" + tool + "\", \"arguments\": {\"path\": \""
                + path + "\"}}</tool>";
    }

    /** The command with the mock model, the recording server, and the data directory when there is a session. */
    List<String> command(MockLlmServer server, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args[0], "--base-url", server.baseUrl().toString(), "--model",
                "mock", "--mcp-config", mcpConfig().toString()));
        if (List.of(args).contains("--session")) {
            all.addAll(List.of("--data-dir", dir.resolve("data").toString()));
        }
        all.addAll(List.of(args).subList(1, args.length));
        return all;
    }

    Cli.Run bellows(MockLlmServer server, String... args) throws IOException {
        return Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), command(server, args).toArray(String[]::new));
    }

    Cli.Run bellowsWithInput(MockLlmServer server, String input, String... args) throws IOException {
        return Cli.run(input, command(server, args).toArray(String[]::new));
    }

    static List<String> types(Cli.Run run) {
        return RunCommandTest.types(run).stream().filter(type -> !type.startsWith("tool_call")
                && !type.startsWith("message") && !type.startsWith("thinking")).toList();
    }

    static String lastUserContent(RecordedRequest request) {
        JsonNode messages = RunCommandTest.messages(request);
        return messages.get(messages.size() - 1).get("content").asString();
    }

    @Nested
    class Run {

        @Test
        void a_call_that_needs_approval_stops_the_run_with_exit_3_and_a_resume_decides_each() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(
                    files("write_file", "a.txt") + files("delete_file", "b.txt") + files("write_file", "c.txt"),
                    complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "s", "--output", "jsonl",
                        "--approve", "files/write_*", "--approve", "*/delete_file", "Tidy up");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                assertThat(types(stopped)).containsExactly("loop_start", "iteration_start", "approval_required",
                        "approval_required", "approval_required", "loop_end");
                List<JsonNode> events = stopped.outJson();
                assertThat(events.stream().filter(e -> e.get("type").asString().equals("approval_required")).toList())
                        .containsExactly(
                                Cli.json("{\"type\":\"approval_required\",\"id\":\"call_1_1\",\"server_name\":\"files\","
                                        + "\"tool_name\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}"),
                                Cli.json("{\"type\":\"approval_required\",\"id\":\"call_1_2\",\"server_name\":\"files\","
                                        + "\"tool_name\":\"delete_file\",\"arguments\":{\"path\":\"b.txt\"}}"),
                                Cli.json("{\"type\":\"approval_required\",\"id\":\"call_1_3\",\"server_name\":\"files\","
                                        + "\"tool_name\":\"write_file\",\"arguments\":{\"path\":\"c.txt\"}}"));
                assertThat(events.getLast().get("reason").asString()).isEqualTo("interrupted");
                assertThat(recorded()).isEmpty();

                Cli.Run resumed = bellows(server, "run", "--session", "s", "--output", "jsonl",
                        "--approve", "files/write_*", "--approve", "*/delete_file",
                        "--approve-call", "call_1_1", "--approve-call", "call_1_3",
                        "--deny-call", "call_1_2", "--deny-reason", "keep b.txt");
                assertThat(resumed.status()).as(resumed.err()).isZero();
                assertThat(types(resumed)).containsExactly("loop_start", "approval", "approval", "approval",
                        "tool_result", "tool_result_error", "tool_result", "iteration_start", "tool_result", "loop_end");
                assertThat(resumed.outJson()).contains(
                        Cli.json("{\"type\":\"approval\",\"id\":\"call_1_1\",\"decision\":\"approved\",\"reason\":\"\"}"),
                        Cli.json("{\"type\":\"approval\",\"id\":\"call_1_2\",\"decision\":\"denied\","
                                + "\"reason\":\"keep b.txt\"}"));
                assertThat(recorded()).containsExactly(
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}",
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"c.txt\"}}");
                assertThat(server.requests()).as("the model was not asked for that answer again").hasSize(2);
                assertThat(lastUserContent(server.requests().get(1))).contains("wrote a.txt", "wrote c.txt",
                        "the user denied this call (it did not run): keep b.txt");
            }
        }

        @Test
        void in_text_mode_the_waiting_calls_and_the_command_go_to_stderr_and_without_a_session_it_says_so()
                throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "a.txt"), files("write_file", "a.txt"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "s", "--approve", "*", "Write it");
                assertThat(stopped.status()).isEqualTo(3);
                assertThat(stopped.out()).isEmpty();
                assertThat(stopped.err()).contains("bellows run: interrupted: a tool call waits for approval:",
                        "  call_1_1  files/write_file  {\"path\":\"a.txt\"}",
                        "to carry it on: bellows run --session s --data-dir " + dir.resolve("data")
                                + " --approve-call call_1_1");

                Cli.Run lost = bellows(server, "run", "--approve", "*", "Write it");
                assertThat(lost.status()).isEqualTo(3);
                assertThat(lost.err()).contains("this run cannot be resumed: it has no session");
            }
            assertThat(recorded()).isEmpty();
        }

        /** The command a stopped run printed to carry it on, as words (the test's paths need no quotes). */
        static List<String> printedCommand(Cli.Run stopped) {
            String line = stopped.err().lines().filter(l -> l.startsWith("to carry it on: ")).findFirst().orElseThrow();
            String command = line.substring("to carry it on: ".length(), line.indexOf("   (or"));
            assertThat(command).startsWith("bellows run ").doesNotContain("'");
            return new ArrayList<>(List.of(command.substring("bellows ".length()).split(" ")));
        }

        /** The printed command, run as printed (no flag added), in a process without the variables. */
        Cli.Run asPrinted(List<String> words) {
            return Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), words.toArray(String[]::new));
        }

        @Test
        void the_printed_command_carries_the_run_on_with_the_servers_and_model_it_began_with() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(
                    files("write_file", "a.txt") + files("write_file", "b.txt"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "tidy", "--approve", "files/*", "Write two notes");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                List<String> words = printedCommand(stopped);
                assertThat(words).containsSubsequence("--approve-call", "call_1_1", "--approve-call", "call_1_2");

                // as printed, but the second call denied (with a reason) instead of approved
                int second = words.indexOf("call_1_2");
                words.set(second - 1, "--deny-call");
                words.addAll(List.of("--deny-reason", "keep b"));
                Cli.Run resumed = asPrinted(words);
                assertThat(resumed.status()).as(resumed.err()).isZero();
                assertThat(resumed.out()).isEqualTo("done\n");
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}");
                assertThat(server.requests()).hasSize(2);
                assertThat(lastUserContent(server.requests().get(1))).contains("wrote a.txt",
                        "the user denied this call (it did not run): keep b");
            }
        }

        @Test
        void a_sub_agents_call_stops_the_whole_run_and_the_printed_command_decides_it_where_it_waits()
                throws Exception {
            team(dir);
            try (MockLlmServer server = RunCommandTest.server(
                    RunCommandTest.call("writer", "{\"task\": \"write a.txt\"}"),
                    files("write_file", "a.txt"), complete("a.txt written"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "team", "--agent", "lead", "--approve", "files/*",
                        "Get a.txt written");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                assertThat(stopped.err()).contains("  call_1_1/call_1_1  files/write_file  {\"path\":\"a.txt\"}");
                List<String> words = printedCommand(stopped);
                assertThat(words).containsSubsequence("--approve-call", "call_1_1/call_1_1").doesNotContain("--agent");
                assertThat(recorded()).isEmpty();

                Cli.Run resumed = asPrinted(words);
                assertThat(resumed.status()).as(resumed.err()).isZero();
                assertThat(resumed.out()).endsWith("done\n");
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}");
                // the writer went on where it stopped (it read its call's result), then the lead read its answer
                assertThat(server.requests()).hasSize(4);
                assertThat(lastUserContent(server.requests().get(2))).contains("wrote a.txt");
                assertThat(lastUserContent(server.requests().get(3))).contains("a.txt written");
            }
        }

        /**
         * One {@code approval_required} line per waiting call, a sub-agent's too: the id a resume
         * decides, with the sub-agent's {@code agent} and {@code parent_call_id}.
         */
        @Test
        void a_sub_agents_waiting_call_is_one_json_line_with_the_id_to_decide_and_the_agent_that_waits()
                throws Exception {
            team(dir);
            try (MockLlmServer server = RunCommandTest.server(
                    RunCommandTest.call("writer", "{\"task\": \"write a.txt\"}"),
                    files("write_file", "a.txt"), complete("a.txt written"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "team", "--agent", "lead", "--approve", "files/*",
                        "--output", "jsonl", "Get a.txt written");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                List<JsonNode> waiting = stopped.outJson().stream()
                        .filter(e -> e.get("type").asString().equals("approval_required")).toList();
                assertThat(waiting).hasSize(1);
                JsonNode line = waiting.getFirst();
                assertThat(line.get("id").asString()).isEqualTo("call_1_1/call_1_1");
                assertThat(line.get("agent").asString()).isEqualTo("writer");
                assertThat(line.get("parent_call_id").asString()).isEqualTo("call_1_1");
                assertThat(line.get("server_name").asString()).isEqualTo("files");
                assertThat(line.get("tool_name").asString()).isEqualTo("write_file");
                assertThat(line.get("arguments").toString()).isEqualTo("{\"path\":\"a.txt\"}");
                assertThat(stopped.outJson().getLast().get("type").asString()).isEqualTo("loop_end");
                assertThat(stopped.outJson().getLast().get("agent").asString()).isEqualTo("lead");

                Cli.Run resumed = bellows(server, "run", "--session", "team", "--approve", "files/*",
                        "--approve-call", line.get("id").asString(), "--output", "jsonl");
                assertThat(resumed.status()).as(resumed.err()).isZero();
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}");
            }
        }

        @Test
        void a_resume_without_the_server_of_an_approved_call_is_refused_naming_it_and_uses_nothing_up()
                throws Exception {
            try (MockLlmServer server = RunCommandTest.server(
                    files("write_file", "a.txt") + files("write_file", "b.txt"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "tidy", "--approve", "files/*", "Write two notes");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                List<String> words = printedCommand(stopped);
                Path none = Files.writeString(dir.resolve("none.json"), "{\"mcpServers\": {}}");

                List<String> withoutServer = new ArrayList<>(words);
                withoutServer.addAll(List.of("--mcp-config", none.toString()));
                Cli.Run refused = asPrinted(withoutServer);
                assertThat(refused.status()).as(refused.err()).isEqualTo(2);
                assertThat(refused.err()).startsWith("bellows run: --approve-call: call call_1_1 needs tool"
                        + " files/write_file, which this run does not have: add the MCP server \"files\" (--mcp-config");
                assertThat(recorded()).isEmpty();
                assertThat(server.requests()).hasSize(1);

                Cli.Run resumed = asPrinted(words);
                assertThat(resumed.status()).as(resumed.err()).isZero();
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}",
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"b.txt\"}}");
                assertThat(server.requests()).hasSize(2);
            }
        }

        @Test
        void a_resume_that_only_denies_needs_no_server() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "a.txt"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "tidy", "--approve", "files/*", "Write a note");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                Path none = Files.writeString(dir.resolve("none.json"), "{\"mcpServers\": {}}");
                Cli.Run denied = asPrinted(List.of("run", "--session", "tidy", "--data-dir", dir.resolve("data").toString(),
                        "--mcp-config", none.toString(), "--deny-call", "call_1_1", "--deny-reason", "not now"));
                assertThat(denied.status()).as(denied.err()).isZero();
                assertThat(recorded()).isEmpty();
                assertThat(lastUserContent(server.requests().get(1)))
                        .contains("the user denied this call (it did not run): not now");
            }
        }

        @Test
        void the_waiting_calls_are_shown_as_any_text_from_a_model_secrets_redacted_and_controls_visible()
                throws Exception {
            plantSecret = true;
            try (MockLlmServer server = RunCommandTest.server(files("write_file", SECRET + "\u009b2J.txt"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "s", "--approve", "*", "Write it");
                assertThat(stopped.status()).isEqualTo(3);
                assertThat(stopped.err()).contains("  call_1_1  files/write_file  {\"path\":\"[REDACTED]\\u009b2J.txt\"}")
                        .doesNotContain(SECRET).doesNotContain("\u009b");
            }
            Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", dir.resolve("data").toString(), "s");
            assertThat(show.out()).contains("call_1_1  files/write_file  {\"path\":\"[REDACTED]\\u009b2J.txt\"}")
                    .doesNotContain(SECRET);
        }

        @Test
        void decisions_that_do_not_fit_are_usage_errors_and_nothing_runs_or_is_sent() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(
                    files("write_file", "a.txt") + files("write_file", "b.txt"), complete("done"))) {
                assertThat(bellows(server, "run", "--session", "s", "--approve", "files/*", "Write").status())
                        .isEqualTo(3);

                Cli.Run leftOut = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1");
                assertThat(leftOut.status()).isEqualTo(2);
                assertThat(leftOut.err()).isEqualTo("bellows run: --approve-call: no decision for waiting call"
                        + " call_1_2: every waiting call needs one\n");
                Cli.Run unknown = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1",
                        "--approve-call", "call_1_2", "--deny-call", "call_9_9");
                assertThat(unknown.status()).isEqualTo(2);
                assertThat(unknown.err()).startsWith("bellows run: --deny-call: no call waits with id call_9_9");
                Cli.Run twice = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1",
                        "--deny-call", "call_1_1");
                assertThat(twice.status()).isEqualTo(2);
                assertThat(twice.err()).contains("call call_1_1 is named twice");
                Cli.Run newTask = bellows(server, "run", "--session", "s", "Something else");
                assertThat(newTask.status()).isEqualTo(2);
                assertThat(newTask.err()).contains("call_1_1, call_1_2").contains("--approve-call");
                Cli.Run withTask = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1", "a task");
                assertThat(withTask.status()).isEqualTo(2);
                assertThat(withTask.err()).contains("--approve-call").contains("no TASK");
                Cli.Run noSession = bellows(server, "run", "--approve-call", "call_1_1");
                assertThat(noSession.status()).isEqualTo(2);
                assertThat(noSession.err()).contains("--approve-call: needs --session NAME");
                Cli.Run reasonAlone = bellows(server, "run", "--session", "s", "--deny-reason", "no");
                assertThat(reasonAlone.status()).isEqualTo(2);
                assertThat(reasonAlone.err()).contains("--deny-reason: only with --deny-call");
                Cli.Run badPattern = bellows(server, "run", "--approve", "write_file", "Write");
                assertThat(badPattern.status()).isEqualTo(2);
                assertThat(badPattern.err()).contains("--approve: an approval pattern is SERVER/TOOL");
                assertThat(recorded()).isEmpty();
                assertThat(server.requests()).hasSize(1);

                Cli.Run ok = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1",
                        "--approve-call", "call_1_2");
                assertThat(ok.status()).as(ok.err()).isZero();
                assertThat(ok.out()).isEqualTo("done\n");
                assertThat(recorded()).hasSize(2);

                Cli.Run nothing = bellows(server, "run", "--session", "s", "--approve-call", "call_1_1");
                assertThat(nothing.status()).isEqualTo(2);
                assertThat(nothing.err()).contains("session s has no run waiting for a decision");
            }
        }

        @Test
        void a_refused_command_changes_nothing_stored_and_the_run_goes_on_in_the_tool_mode_it_stopped_in()
                throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "a.txt"), complete("done"))) {
                assertThat(bellows(server, "run", "--session", "m", "--approve", "files/*", "Write").status())
                        .isEqualTo(3);
                String stored = show("m");

                // A new task and decisions that do not fit, in another tool mode: refused, and the
                // session's settings (which a resume without flags goes on with) stay the waiting run's.
                Cli.Run newTask = bellows(server, "run", "--session", "m", "--tool-mode", "native", "Something else");
                assertThat(newTask.status()).as(newTask.err()).isEqualTo(2);
                assertThat(newTask.err()).contains("has a run waiting for decisions on tool calls call_1_1");
                Cli.Run leftOut = bellows(server, "run", "--session", "m", "--deny-call", "call_9_9");
                assertThat(leftOut.status()).isEqualTo(2);
                assertThat(show("m")).isEqualTo(stored);

                // Carried on in another mode, the calls would run and the run fail after them.
                Cli.Run otherMode = bellows(server, "run", "--session", "m", "--tool-mode", "native",
                        "--approve-call", "call_1_1");
                assertThat(otherMode.status()).isEqualTo(2);
                assertThat(otherMode.err()).isEqualTo("bellows run: --tool-mode: the run of session m that waits on"
                        + " tool calls stopped in the tags tool mode, and goes on in it only (leave --tool-mode out)\n");
                Cli.Run react = bellows(server, "run", "--session", "m", "--agent", "react", "--approve-call",
                        "call_1_1");
                assertThat(react.status()).isEqualTo(2);
                assertThat(react.err()).contains("--agent: the run of session m that waits");
                assertThat(show("m")).isEqualTo(stored);
                assertThat(recorded()).isEmpty();
                assertThat(server.requests()).hasSize(1);

                Cli.Run ok = bellows(server, "run", "--session", "m", "--approve-call", "call_1_1");
                assertThat(ok.status()).as(ok.err()).isZero();
                assertThat(ok.out()).isEqualTo("done\n");
                assertThat(recorded()).hasSize(1);
            }
        }

        /** What {@code sessions show} prints of a session: its settings, messages and waiting calls. */
        String show(String name) throws IOException {
            Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", dir.resolve("data").toString(), name);
            assertThat(show.status()).as(show.err()).isZero();
            return show.out();
        }

        @Test
        void a_damaged_waiting_run_or_resume_log_is_reported_by_run_chat_and_sessions_show_and_nothing_runs()
                throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "a.txt"), files("write_file", "a.txt"))) {
                for (String name : List.of("state", "log")) {
                    assertThat(bellows(server, "run", "--session", name, "--approve", "*", "Write").status())
                            .isEqualTo(3);
                }
                try (java.sql.Connection db = java.sql.DriverManager.getConnection(
                        "jdbc:sqlite:" + dir.resolve("data").resolve("sessions.db"));
                     java.sql.Statement statement = db.createStatement()) {
                    statement.executeUpdate("UPDATE sessions SET waiting_run = '{\"version\": 1, \"task\": 7}'"
                            + " WHERE name = 'state'");
                    statement.executeUpdate("INSERT INTO waiting_log SELECT id, 1, '{\"decided\": 5}' FROM sessions"
                            + " WHERE name = 'log'");
                }
                Map<String, String> why = Map.of("state", "\"head\" is missing or not an array",
                        "log", "\"decided\" is missing or not a string");
                for (String name : List.of("state", "log")) {
                    String damaged = "the waiting run stored in session \"" + name + "\" is damaged, so it cannot be"
                            + " resumed: " + why.get(name);
                    Cli.Run resume = bellows(server, "run", "--session", name, "--approve-call", "call_1_1");
                    assertThat(resume.status()).as(resume.err()).isEqualTo(1);
                    assertThat(resume.err()).isEqualTo("bellows run: " + damaged + "\n");
                    Cli.Run task = bellows(server, "run", "--session", name, "Another");
                    assertThat(task.status()).isEqualTo(1);
                    assertThat(task.err()).contains(damaged);
                    Cli.Run chat = bellowsWithInput(server, "", "chat", "--session", name);
                    assertThat(chat.status()).isEqualTo(1);
                    assertThat(chat.err()).contains(damaged);
                    Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", dir.resolve("data").toString(), name);
                    assertThat(show.status()).isEqualTo(1);
                    assertThat(show.err()).contains("session \"" + name + "\": the stored waiting run is damaged: "
                            + why.get(name));
                }
            }
            assertThat(recorded()).isEmpty();
        }

        @Test
        void the_config_files_approve_key_and_the_built_in_tools_never_waiting() throws Exception {
            Files.writeString(dir.resolve("bellows.json"), "{\"approve\": [\"*\"]}");
            try (MockLlmServer server = RunCommandTest.server(
                    call("update_plan", "{\"steps\": [{\"description\": \"a\", \"status\": \"pending\"}]}"),
                    files("write_file", "a.txt"), complete("done"))) {
                Cli.Run stopped = bellows(server, "run", "--session", "c", "--output", "jsonl", "Plan and write");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                assertThat(types(stopped)).contains("plan_update").endsWith("approval_required", "loop_end");
                assertThat(stopped.outJson().stream().filter(e -> e.get("type").asString().equals("approval_required"))
                        .map(e -> e.get("id").asString()).toList()).containsExactly("call_2_1");
            }
            Files.writeString(dir.resolve("bellows.json"), "{\"approve\": \"*\"}");
            try (MockLlmServer server = RunCommandTest.server(complete("x"))) {
                Cli.Run bad = bellows(server, "run", "Plan");
                assertThat(bad.status()).isEqualTo(2);
                assertThat(bad.err()).contains("bellows.json: \"approve\" must be an array of strings");
            }
        }

        @Test
        void native_tool_calls_wait_under_the_providers_ids() throws Exception {
            MockTurn write = MockTurn.toolCalls(new MockToolCall("call_w1", "files__write_file", "{\"path\": \"n.txt\"}"));
            MockTurn done = MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"done\"}"));
            try (MockLlmServer server = MockLlmServer.start(MockScript.of(write, done))) {
                Cli.Run stopped = bellows(server, "run", "--session", "n", "--tool-mode", "native", "--output", "jsonl",
                        "--approve", "files/*", "Write");
                assertThat(stopped.status()).as(stopped.err()).isEqualTo(3);
                assertThat(stopped.outJson()).contains(Cli.json("{\"type\":\"approval_required\",\"id\":\"call_w1\","
                        + "\"server_name\":\"files\",\"tool_name\":\"write_file\",\"arguments\":{\"path\":\"n.txt\"}}"));
                Cli.Run denied = bellows(server, "run", "--session", "n", "--deny-call", "call_w1");
                assertThat(denied.status()).as(denied.err()).isZero();
                JsonNode sent = RunCommandTest.messages(server.requests().get(1));
                JsonNode toolMessage = sent.get(sent.size() - 1);
                assertThat(toolMessage.get("role").asString()).isEqualTo("tool");
                assertThat(toolMessage.get("tool_call_id").asString()).isEqualTo("call_w1");
                assertThat(toolMessage.get("content").asString()).isEqualTo("the user denied this call (it did not run)");
            }
            assertThat(recorded()).isEmpty();
        }

        @Test
        void sessions_show_lists_the_waiting_calls() throws Exception {
            String key = "sk-never-in-a-session-2468";
            String baseUrl;
            try (MockLlmServer server = RunCommandTest.server(files("delete_file", "old.log"))) {
                baseUrl = server.baseUrl().toString();
                assertThat(bellows(server, "run", "--session", "shown", "--approve", "*/delete_*", "--api-key", key,
                        "Clean").status()).isEqualTo(3);
            }
            Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", dir.resolve("data").toString(), "shown");
            assertThat(show.status()).as(show.err()).isZero();
            // the waiting request counts, and what the run needs to be carried on is shown, no key
            assertThat(show.out()).contains("requests:  1 (0 steps, 0 messages stored; 1 request waits for decisions",
                    "base_url:  " + baseUrl + "\n", "mcp_config: " + mcpConfig().toAbsolutePath().normalize() + "\n",
                    "approve:   [\"*/delete_*\"]\n", "model:     mock\n")
                    .doesNotContain(key).doesNotContain("[REDACTED]");
            assertThat(show.out()).contains("--- waiting for approval ---\n"
                    + "call_1_1  files/delete_file  {\"path\":\"old.log\"}\n"
                    + "(decide: bellows run --session shown --approve-call ID / --deny-call ID)\n");
        }
    }

    @Nested
    class Chat {

        @Test
        void y_runs_the_call_n_with_a_reason_denies_it_and_a_approves_the_tool_for_the_rest_of_the_chat()
                throws Exception {
            try (MockLlmServer server = RunCommandTest.server(
                    files("write_file", "one.txt") + files("delete_file", "two.txt"),
                    complete("first done"),
                    files("write_file", "three.txt"),
                    files("write_file", "four.txt"),
                    complete("second done"))) {
                Cli.Run chat = bellowsWithInput(server, """
                        First task
                        y
                        n use the staging folder
                        Second task
                        a
                        """, "chat", "--approve", "files/*");
                assertThat(chat.status()).as(chat.err()).isZero();
                assertThat(chat.out()).contains("first done", "second done");
                assertThat(chat.err()).contains("tool call files/write_file (call_1_1) waits for your approval:",
                        "\"path\" : \"one.txt\"", "tool call files/write_file (call_3_1) waits for your approval:")
                        .doesNotContain("(call_4_1) waits");
                assertThat(recorded()).containsExactly(
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"one.txt\"}}",
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"three.txt\"}}",
                        "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"four.txt\"}}");
                assertThat(lastUserContent(server.requests().get(1)))
                        .contains("wrote one.txt", "the user denied this call (it did not run): use the staging folder");
                assertThat(server.requests()).hasSize(5);
            }
        }

        @Test
        void a_sub_agents_call_is_asked_about_in_the_chat_and_the_answer_goes_down_to_it() throws Exception {
            Path config = team(dir);
            try (MockLlmServer server = RunCommandTest.server(
                    RunCommandTest.call("writer", "{\"task\": \"write two\"}"),
                    files("write_file", "one.txt") + files("write_file", "two.txt"),
                    complete("one written, two not"), complete("done"))) {
                Cli.Run chat = bellowsWithInput(server, """
                        Get them written
                        y
                        n not two
                        """, "chat", "--config", config.toString(), "--agent", "lead",
                        "--approve", "files/*");
                assertThat(chat.status()).as(chat.err()).isZero();
                assertThat(chat.out()).contains("done");
                assertThat(chat.err()).contains(
                        "tool call files/write_file (call_1_1/call_1_1) waits for your approval:",
                        "tool call files/write_file (call_1_1/call_1_2) waits for your approval:");
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"one.txt\"}}");
                assertThat(server.requests()).hasSize(4);
                assertThat(lastUserContent(server.requests().get(2)))
                        .contains("wrote one.txt", "the user denied this call (it did not run): not two");
            }
        }

        @Test
        void the_question_shows_the_arguments_indented_long_values_cut_secrets_redacted_and_controls_visible()
                throws Exception {
            plantSecret = true;
            String tall = "x".repeat(400);
            try (MockLlmServer server = RunCommandTest.server(
                    "<tool>{\"server_name\": \"files\", \"tool_name\": \"write_file\", \"arguments\": {\"path\": \""
                            + SECRET + "\u009b2J.txt\", \"content\": \"" + tall + "\"}}</tool>", complete("done"))) {
                Cli.Run chat = bellowsWithInput(server, "Write\nn\n", "chat", "--approve", "files/*");
                assertThat(chat.status()).as(chat.err()).isZero();
                assertThat(chat.err()).contains("tool call files/write_file (call_1_1) waits for your approval:\n"
                        + "  {\n"
                        + "    \"path\" : \"[REDACTED]\\u009b2J.txt\",\n"
                        + "    \"content\" : \"" + "x".repeat(300) + "\u2026\"\n"
                        + "  }\n").doesNotContain(SECRET).doesNotContain("\u009b").doesNotContain(tall);
            }
            assertThat(recorded()).isEmpty();
        }

        @Test
        void at_the_end_of_the_input_the_question_waits_for_the_next_chat_or_run() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "later.txt"), complete("done"))) {
                Cli.Run first = bellowsWithInput(server, "Write it later\n", "chat", "--session", "q",
                        "--approve", "*");
                assertThat(first.status()).as(first.err()).isZero();
                assertThat(recorded()).isEmpty();

                Cli.Run second = bellowsWithInput(server, "y\n", "chat", "--session", "q", "--approve", "*");
                assertThat(second.status()).as(second.err()).isZero();
                assertThat(second.err()).contains("(the last request waits for your decision on its tool calls)");
                assertThat(second.out()).contains("done");
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"later.txt\"}}");
                assertThat(server.requests()).hasSize(2);
            }
        }

        @Test
        void a_chat_without_the_server_of_a_waiting_call_refuses_its_approval_and_the_run_waits_on() throws Exception {
            try (MockLlmServer server = RunCommandTest.server(files("write_file", "later.txt"), complete("done"))) {
                Cli.Run first = bellowsWithInput(server, "Write it later\n", "chat", "--session", "q",
                        "--approve", "*");
                assertThat(first.status()).as(first.err()).isZero();
                Path none = Files.writeString(dir.resolve("none.json"), "{\"mcpServers\": {}}");
                Cli.Run without = Cli.run("y\n", "chat", "--base-url", server.baseUrl().toString(), "--model", "mock",
                        "--mcp-config", none.toString(), "--data-dir", dir.resolve("data").toString(), "--session", "q",
                        "--approve", "*");
                assertThat(without.out() + without.err()).contains("call call_1_1 needs tool files/write_file, which this"
                        + " chat does not have: add the MCP server \"files\" (--mcp-config FILE");
                assertThat(recorded()).isEmpty();
                assertThat(server.requests()).hasSize(1);

                Cli.Run with = bellowsWithInput(server, "y\n", "chat", "--session", "q", "--approve", "*");
                assertThat(with.status()).as(with.err()).isZero();
                assertThat(recorded()).containsExactly("{\"tool\":\"write_file\",\"arguments\":{\"path\":\"later.txt\"}}");
                assertThat(server.requests()).hasSize(2);
            }
        }
    }
}
