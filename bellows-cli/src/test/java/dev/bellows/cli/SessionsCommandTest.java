package dev.bellows.cli;

import dev.bellows.testkit.Background;
import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Message;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows run --session NAME} and {@code bellows sessions} end to end: in-process,
 * against a {@link MockLlmServer} over HTTP on 127.0.0.1, with a real SQLite database in a
 * temporary data directory.
 */
class SessionsCommandTest {

    @TempDir
    Path dir;

    private Path data() {
        return dir.resolve("data");
    }

    private Cli.Run bellows(Map<String, String> env, String... args) {
        return Cli.run(new Host(env, dir, Interrupts.NONE, false), args);
    }

    private Cli.Run bellows(String... args) {
        return bellows(Map.of(), args);
    }

    private Cli.Run runInSession(MockLlmServer server, String session, String... rest) {
        List<String> args = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                "--session", session, "--data-dir", data().toString()));
        args.addAll(List.of(rest));
        return bellows(args.toArray(String[]::new));
    }

    @Test
    void aSessionKeepsTheConversationAndPlanAcrossRuns() {
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.PLAN, complete("391"))) {
            Cli.Run first = runInSession(server, "math", "What is 17 * 23?");
            assertThat(first.status()).as(first.err()).isZero();
            assertThat(first.out()).isEqualTo("391\n");
        }
        try (MockLlmServer server = RunCommandTest.server(complete("392"))) {
            Cli.Run second = runInSession(server, "math", "And one more?");
            assertThat(second.status()).as(second.err()).isZero();
            assertThat(second.out()).isEqualTo("392\n");
            String sent = RunCommandTest.messages(server.requests().getFirst()).toString();
            assertThat(sent).contains("What is 17 * 23?").contains("update_plan").contains("task_completion")
                    .contains("And one more?");
            assertThat(sent).as("the stored plan is shown to the model").contains("[>] read");
        }
        Cli.Run list = bellows("sessions", "--data-dir", data().toString());
        assertThat(list.status()).isZero();
        assertThat(list.out()).startsWith("NAME  REQUESTS  STEPS  UPDATED");
        assertThat(list.out().lines().skip(1).toList()).singleElement().asString()
                .as("two requests, answered in three steps").startsWith("math         2      3  ").endsWith("  mock");

        Cli.Run show = bellows("sessions", "show", "math", "--data-dir", data().toString());
        assertThat(show.status()).as(show.err()).isZero();
        assertThat(show.out()).contains("session:   math\n").contains("requests:  2 (3 steps, 6 messages)\n")
                .contains("model:     mock\n").contains("tool_mode: tags\n").contains("plan:\n  [>] read\n")
                .contains("--- request 1, step 1 ---\n[user]\nWhat is 17 * 23?\n[assistant]\n<thinking>plan it</thinking>")
                .contains("--- request 1, step 2 ---\n[assistant]\n")
                .contains("--- request 2, step 1 ---\n[user]\nAnd one more?\n[assistant]\n");
    }

    @Test
    void theStoredTurnsAreTheConversationTheModelSaw() {
        try (MockLlmServer server = RunCommandTest.server(complete("done"))) {
            assertThat(runInSession(server, "exact", "Say done").status()).isZero();
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(data())) {
            assertThat(store.turns("exact")).contains(List.of(List.of(Message.user("Say done"),
                    Message.assistant(complete("done")))));
            assertThat(store.find("exact").orElseThrow().metadata())
                    .containsEntry(StoredSession.MODEL, "mock").containsEntry(StoredSession.TOOL_MODE, "tags");
        }
    }

    @Test
    void aContinuedSessionKeepsItsModelAndLoopUnlessToldOtherwise() {
        try (MockLlmServer server = RunCommandTest.server("# thought\nEasy.\n\n# answer\n42")) {
            Cli.Run first = bellows("run", "--base-url", server.baseUrl().toString(), "--model", "stored-model",
                    "--agent", "react", "--session", "kept", "--data-dir", data().toString(), "six times seven?");
            assertThat(first.status()).as(first.err()).isZero();
        }
        try (MockLlmServer server = RunCommandTest.server("# thought\nStill easy.\n\n# answer\n43")) {
            Cli.Run second = bellows("run", "--base-url", server.baseUrl().toString(),
                    "--session", "kept", "--data-dir", data().toString(), "plus one?");
            assertThat(second.status()).as(second.err()).isZero();
            assertThat(second.out()).isEqualTo("43\n");
            assertThat(server.requests().getFirst().body().get("model").asString()).isEqualTo("stored-model");
        }
        try (MockLlmServer server = RunCommandTest.server(complete("44"))) {
            Cli.Run third = bellows("run", "--base-url", server.baseUrl().toString(), "--model", "other-model",
                    "--agent", "default", "--session", "kept", "--data-dir", data().toString(), "and again?");
            assertThat(third.status()).as(third.err()).isZero();
            assertThat(server.requests().getFirst().body().get("model").asString()).isEqualTo("other-model");
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(data())) {
            assertThat(store.find("kept").orElseThrow().metadata())
                    .containsEntry(StoredSession.MODEL, "other-model").containsEntry(StoredSession.TOOL_MODE, "tags");
            assertThat(store.find("kept").orElseThrow().turns()).isEqualTo(3);
        }
    }

    @Test
    void deleteRemovesASessionAndUnknownNamesAreUsageErrors() {
        try (MockLlmServer server = RunCommandTest.server(complete("a"))) {
            assertThat(runInSession(server, "old", "first").status()).isZero();
        }
        Cli.Run delete = bellows("sessions", "--data-dir", data().toString(), "delete", "old");
        assertThat(delete.status()).as(delete.err()).isZero();
        assertThat(delete.err()).isEqualTo("deleted session \"old\"\n");

        Cli.Run again = bellows("sessions", "delete", "old", "--data-dir", data().toString());
        assertThat(again.status()).isEqualTo(2);
        assertThat(again.err()).startsWith("bellows sessions delete: no session \"old\" in " + data());
        Cli.Run show = bellows("sessions", "show", "old", "--data-dir", data().toString());
        assertThat(show.status()).isEqualTo(2);
        assertThat(show.err()).startsWith("bellows sessions show: no session \"old\"");
        Cli.Run bad = bellows("sessions", "show", "../etc/passwd", "--data-dir", data().toString());
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("invalid session name");
    }

    @Test
    void aRunCancelledWithCtrlCStaysInTheSessionAfterItsFinishedTurnsMarkedInterrupted() throws Exception {
        AtomicReference<Runnable> interrupt = new AtomicReference<>();
        Interrupts interrupts = action -> {
            interrupt.set(action);
            return () -> interrupt.set(null);
        };
        String plan = RunCommandTest.call("update_plan",
                "{\"steps\": [{\"description\": \"count\", \"status\": \"in_progress\"}]}");
        MockTurn slow = MockTurn.content("Counting: " + "one ".repeat(300) + complete("never")).chunkSize(4).delayMs(20);
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(plan), slow))) {
            CompletableFuture<Cli.Run> run = Background.supply(() -> Cli.run(
                    new Host(Map.of(), dir, interrupts, false), "run", "--base-url", server.baseUrl().toString(),
                    "--model", "mock", "--session", "count", "--data-dir", data().toString(), "Count slowly"));
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a hang guard, not a measure
            while ((interrupt.get() == null || server.requests().size() < 2) && System.nanoTime() < giveUp) {
                Thread.sleep(10);
            }
            interrupt.get().run();
            assertThat(run.get(60, TimeUnit.SECONDS).status()).isEqualTo(130);
        }
        Cli.Run show = bellows("sessions", "show", "count", "--data-dir", data().toString());
        assertThat(show.out()).as(show.err()).contains("requests:  1 (2 steps, 4 messages)")
                .as("the finished iteration holds the task; the cancelled one is what had streamed, then the marker")
                .contains("--- request 1, step 1 ---\n[user]\nCount slowly\n[assistant]\n<tool>")
                .contains("--- request 1, step 2 ---\n[assistant]\n")
                .contains(InterruptedTurn.MARKER + "\n").doesNotContain("never");
    }

    @Test
    void aSessionOpenElsewhereIsRefusedBeforeAnythingIsSent() {
        try (SqliteSessionStore store = SqliteSessionStore.open(data()); StoredSession busy = store.open("busy");
             MockLlmServer server = RunCommandTest.server(complete("never"))) {
            busy.append(List.of(Message.user("held")));
            Cli.Run run = runInSession(server, "busy", "hello");
            assertThat(run.status()).as("in use: exit 1, as bellows sessions says it").isEqualTo(1);
            assertThat(run.err()).as("clear words, with no value of an option in them, nor a garbled one")
                    .isEqualTo("bellows run: --session: the session is already open in this process; close it before"
                            + " opening it again\n");
            assertThat(run.out()).isEmpty();
            assertThat(server.requests()).isEmpty();

            Cli.Run delete = bellows("sessions", "delete", "busy", "--data-dir", data().toString());
            assertThat(delete.status()).isEqualTo(1);
            assertThat(delete.err()).contains("session \"busy\" is already open");
            Cli.Run show = bellows("sessions", "show", "busy", "--data-dir", data().toString());
            assertThat(show.status()).as("show reads an open session").isZero();
            assertThat(show.out()).contains("[user]\nheld\n");
        }
    }

    @Test
    void badSessionOptionsAreUsageErrors() {
        try (MockLlmServer server = RunCommandTest.server(complete("never"))) {
            Cli.Run badName = runInSession(server, "no/slashes", "hello");
            assertThat(badName.status()).isEqualTo(2);
            // A session name is no secret: the message names the flag and the name.
            assertThat(badName.err()).startsWith("bellows run: --session: invalid session name \"no/slashes\"");
            Cli.Run dataDirAlone = bellows("run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--data-dir", data().toString(), "hello");
            assertThat(dataDirAlone.status()).isEqualTo(2);
            assertThat(dataDirAlone.err()).isEqualTo("bellows run: --data-dir: only used with --session NAME or with MCP servers (for their tokens)\n");
            assertThat(server.requests()).isEmpty();
        }
        assertThat(data()).doesNotExist();
    }

    @Test
    void theDataDirectoryComesFromTheEnvironmentWhenNotGiven() {
        Map<String, String> env = Map.of("XDG_DATA_HOME", dir.resolve("xdg").toString());
        try (MockLlmServer server = RunCommandTest.server(complete("ok"))) {
            Cli.Run run = bellows(env, "run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--session", "xdg", "hi");
            assertThat(run.status()).as(run.err()).isZero();
        }
        assertThat(dir.resolve("xdg/bellows/sessions.db")).exists();
        assertThat(bellows(env, "sessions").out()).contains("xdg ");

        Map<String, String> explicit = Map.of("XDG_DATA_HOME", dir.resolve("xdg").toString(),
                "BELLOWS_DATA_DIR", "relative-data");
        Cli.Run empty = bellows(explicit, "sessions");
        assertThat(empty.status()).isZero();
        assertThat(empty.out()).isEmpty();
        assertThat(empty.err()).isEqualTo("no sessions in " + dir.resolve("relative-data")
                + " (bellows chat --session NAME, or bellows run --session NAME ..., starts one)\n");
        assertThat(Files.exists(dir.resolve("relative-data"))).as("listing creates nothing").isFalse();
    }
}
