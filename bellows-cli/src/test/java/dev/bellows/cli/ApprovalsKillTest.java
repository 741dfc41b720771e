package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.ToolMode;
import dev.bellows.memory.WaitingRun;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Approvals across {@code bellows} commands, one of them a process of its own killed with SIGKILL
 * during its step, the tools an MCP server that records every call it gets: a run stops (exit 3);
 * a process approves and is killed while an approved call runs; a third command carries the run on
 * without a decision: nothing that ran runs again, the call cut off is reported to the model as
 * of unknown outcome, no decision is lost. And a chat process killed at its question leaves the
 * run for {@code bellows run --approve-call}. The commands before and after the killed one run in
 * this JVM: what they show does not need a JVM of their own.
 */
class ApprovalsKillTest {

    /**
     * A hang guard, not a timing check: a bellows JVM and its MCP server (node) must start before
     * the calls are made, which on a loaded two-core machine took over 60 s.
     */
    private static final long GUARD_SECONDS = 300;


    @TempDir
    Path dir;

    private final ApprovalsCliTest setup = new ApprovalsCliTest();

    /** A {@code bellows} JVM of its own with these arguments. */
    Process bellows(MockLlmServer server, String... args) throws IOException {
        setup.dir = dir;
        List<String> command = new ArrayList<>(ChildJvm.bellows().java());
        command.add(BellowsCommand.class.getName());
        command.addAll(setup.command(server, args));
        return new ProcessBuilder(command).directory(dir.toFile())
                .redirectError(dir.resolve("child-" + System.nanoTime() + ".err").toFile()).start();
    }

    /**
     * The same command in this JVM, for the steps before and after the one killed: they need no
     * JVM of their own to show that the killed process lost nothing (a JVM's start-up less each).
     */
    Cli.Run inProcess(MockLlmServer server, String... args) throws IOException {
        setup.dir = dir;
        return setup.bellows(server, args);
    }

    List<String> recorded() throws IOException {
        setup.dir = dir;
        return setup.recorded();
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void a_resume_killed_mid_call_loses_no_decision_and_runs_nothing_twice(ToolMode mode) throws Exception {
        boolean tags = mode == ToolMode.TAGS;
        MockTurn calls = tags
                ? MockTurn.content(ApprovalsCliTest.files("write_file", "a.txt") + ApprovalsCliTest.files("hang", "h"))
                : MockTurn.toolCalls(new MockToolCall("w1", "files__write_file", "{\"path\": \"a.txt\"}"),
                        new MockToolCall("h1", "files__hang", "{\"path\": \"h\"}"));
        MockTurn done = tags ? MockTurn.content(RunCommandTest.complete("done"))
                : MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"done\"}"));
        String write = tags ? "call_1_1" : "w1";
        String hang = tags ? "call_1_2" : "h1";
        String toolMode = tags ? "tags" : "native";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(calls, done))) {
            Cli.Run stopped = inProcess(server, "run", "--session", "k", "--tool-mode", toolMode,
                    "--approve", "files/*", "--output", "jsonl", "Write and hang");
            assertThat(stopped.status()).as(stopped.out()).isEqualTo(3);
            assertThat(stopped.out()).contains("\"id\":\"" + write + "\"", "\"id\":\"" + hang + "\"");

            Process approving = bellows(server, "run", "--session", "k", "--output", "jsonl",
                    "--approve-call", write, "--approve-call", hang);
            // write_file runs, then hang, which never answers: the server records each call as it gets it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (recorded().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(recorded()).hasSize(2);
            approving.toHandle().destroyForcibly();     // SIGKILL, the call in flight
            approving.waitFor();
            try (SqliteSessionStore store = SqliteSessionStore.open(dir.resolve("data"))) {
                WaitingRun waiting = store.waitingRun("k").orElseThrow();
                assertThat(String.join("\n", waiting.log())).contains("\"decided\":\"" + write + "\"",
                        "\"decided\":\"" + hang + "\"", "\"started\":\"" + hang + "\"")
                        .doesNotContain("\"finished\":\"" + hang + "\"");
            }

            Cli.Run carried = inProcess(server, "run", "--session", "k", "--output", "jsonl");
            assertThat(carried.status()).as(carried.out()).isZero();
            assertThat(recorded()).containsExactly(
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}",
                    "{\"tool\":\"hang\",\"arguments\":{\"path\":\"h\"}}");
            assertThat(server.requests()).hasSize(2);
            JsonNode sent = RunCommandTest.messages(server.requests().get(1));
            assertThat(sent.toString()).contains("wrote a.txt", "the outcome of this call is unknown");
            try (SqliteSessionStore store = SqliteSessionStore.open(dir.resolve("data"))) {
                assertThat(store.waitingRun("k")).isEmpty();
            }
        }
    }

    /**
     * The same through a sub-agent: the lead's run waits on the writer's calls; the process that
     * approves them is killed while the writer's approved call runs; the next one carries the
     * writer on where it stopped, from what the lead's waiting run keeps: nothing runs twice.
     */
    @Test
    void a_resume_killed_mid_call_of_a_sub_agent_runs_nothing_twice_and_the_sub_agent_goes_on() throws Exception {
        ApprovalsCliTest.team(dir);
        MockScript script = MockScript.of(
                MockTurn.content(RunCommandTest.call("writer", "{\"task\": \"write and hang\"}")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "a.txt") + ApprovalsCliTest.files("hang", "h")),
                MockTurn.content(RunCommandTest.complete("a.txt written, h unknown")),
                MockTurn.content(RunCommandTest.complete("done")));
        try (MockLlmServer server = MockLlmServer.start(script)) {
            Cli.Run stopped = inProcess(server, "run", "--session", "n", "--agent", "lead",
                    "--approve", "files/*", "--output", "jsonl", "Get it written");
            assertThat(stopped.status()).as(stopped.out()).isEqualTo(3);
            assertThat(stopped.out()).contains("\"id\":\"call_1_1/call_1_1\"", "\"id\":\"call_1_1/call_1_2\"");

            Process approving = bellows(server, "run", "--session", "n", "--output", "jsonl",
                    "--approve-call", "call_1_1/call_1_1", "--approve-call", "call_1_1/call_1_2");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (recorded().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(recorded()).hasSize(2);
            approving.toHandle().destroyForcibly();     // SIGKILL, the writer's call in flight
            approving.waitFor();
            try (SqliteSessionStore store = SqliteSessionStore.open(dir.resolve("data"))) {
                WaitingRun waiting = store.waitingRun("n").orElseThrow();
                // the lead's log holds the writer's own log, as notes of the lead's call
                assertThat(String.join("\n", waiting.log())).contains("\"decided\":\"call_1_1/call_1_2\"",
                        "\"noted\":\"call_1_1\"", "\"started\":\"call_1_2\"")
                        .doesNotContain("\"finished\":\"call_1_2\"");
            }

            Cli.Run carried = inProcess(server, "run", "--session", "n", "--output", "jsonl");
            assertThat(carried.status()).as(carried.out()).isZero();
            assertThat(recorded()).containsExactly(
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"a.txt\"}}",
                    "{\"tool\":\"hang\",\"arguments\":{\"path\":\"h\"}}");
            assertThat(server.requests()).hasSize(4);
            JsonNode writerSaw = RunCommandTest.messages(server.requests().get(2));
            assertThat(writerSaw.toString()).contains("You write files.", "wrote a.txt",
                    "the outcome of this call is unknown");
            assertThat(RunCommandTest.messages(server.requests().get(3)).toString()).contains("a.txt written, h unknown");
            try (SqliteSessionStore store = SqliteSessionStore.open(dir.resolve("data"))) {
                assertThat(store.waitingRun("n")).isEmpty();
            }
        }
    }

    @Test
    void a_chat_killed_at_its_question_leaves_the_run_for_bellows_run() throws Exception {
        try (MockLlmServer server = RunCommandTest.server(ApprovalsCliTest.files("delete_file", "old.log"),
                RunCommandTest.complete("cleaned"))) {
            Process chat = bellows(server, "chat", "--session", "c", "--approve", "*/delete_file");
            try (OutputStream in = chat.getOutputStream()) {
                in.write("Clean up\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
                Path err = Files.list(dir).filter(p -> p.getFileName().toString().startsWith("child-")).findFirst()
                        .orElseThrow();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
                while (!Files.readString(err).contains("waits for your approval") && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(Files.readString(err)).contains("tool call files/delete_file (call_1_1) waits for your approval");
                chat.toHandle().destroyForcibly();
                chat.waitFor();
            }
            assertThat(recorded()).isEmpty();

            Cli.Run approved = inProcess(server, "run", "--session", "c", "--approve-call", "call_1_1");
            assertThat(approved.status()).isZero();
            assertThat(approved.out()).isEqualTo("cleaned\n");
            assertThat(recorded()).containsExactly("{\"tool\":\"delete_file\",\"arguments\":{\"path\":\"old.log\"}}");
        }
    }
}
