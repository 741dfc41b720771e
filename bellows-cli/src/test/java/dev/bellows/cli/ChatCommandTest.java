package dev.bellows.cli;

import dev.bellows.testkit.Background;
import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows chat} driven by a script on standard input (the plain, non-terminal mode),
 * in-process against a {@link MockLlmServer} over HTTP on 127.0.0.1.
 */
class ChatCommandTest {

    @TempDir
    Path dir;

    private Cli.Run chat(MockLlmServer server, String script, String... more) {
        List<String> args = new ArrayList<>(List.of("chat", "--base-url", server.baseUrl().toString(),
                "--model", "mock", "--data-dir", dir.resolve("data").toString()));
        args.addAll(List.of(more));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)),
                out, err, false, new Host(Map.of(), dir, Interrupts.NONE, false)).execute(args.toArray(String[]::new));
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void eachLineIsATurnOfOneConversation() {
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.PLAN, complete("391"), complete("392"))) {
            Cli.Run run = chat(server, "What is 17 * 23?\nAnd one more?\n");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).as("standard output: the answers alone, no prompt").isEqualTo("391\n392\n");
            assertThat(run.err()).contains("thinking: plan it").contains("calling update_plan\u2026")
                    .contains("plan:\n  [>] read")
                    .as("each message echoed where the progress goes, before its turn")
                    .startsWith("> What is 17 * 23?\n").contains("\n> And one more?\n");
            String second = RunCommandTest.messages(server.requests().get(2)).toString();
            assertThat(second).as("the second turn sees the first").contains("What is 17 * 23?")
                    .contains("And one more?");
        }
    }

    @Test
    void aNumberAnswersWithThatSuggestion() {
        String ask = call("ask_question", "{\"question\": \"Which file?\", \"suggestions\": [\"a.txt\", \"b.txt\"]}");
        try (MockLlmServer server = RunCommandTest.server(ask, complete("read b"))) {
            Cli.Run run = chat(server, "Read a file\n2\n");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("Which file?\n  1. a.txt\n  2. b.txt\n(answering: b.txt)\nread b\n");
            String sent = RunCommandTest.messages(server.requests().get(1)).toString();
            assertThat(sent).contains("b.txt").doesNotContain("\"content\":\"2\"");
        }
    }

    @Test
    void slashCommandsAnswerWithoutAModelCall() {
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.PLAN, complete("done"))) {
            Cli.Run run = chat(server, "/help\n/model\ngo\n/plan\n/session\n/tools\n/clear\n/session\n/nope\n/exit\nnever\n");
            assertThat(run.status()).as("a script with an unknown command: 1, as sqlite3 says for one").isEqualTo(1);
            assertThat(run.out()).contains(ChatCommand.HELP).contains("mock (openai)\n").contains("done\n")
                    .contains("[>] read\n").contains("1 request (").contains("task_completion  ")
                    .as("/tools: the descriptions in one column").contains("\nupdate_plan      Replaces")
                    .contains("(the conversation is cleared)\n").contains("0 requests")
                    .doesNotContain("unknown command").doesNotContain("never");
            assertThat(run.err()).contains("> /nope\nunknown command /nope; /help lists them\n");
            assertThat(server.requests()).hasSize(2);
        }
    }

    @Test
    void aStoredSessionResumesInTheNextChat() {
        try (MockLlmServer server = RunCommandTest.server(complete("first"))) {
            assertThat(chat(server, "remember 7\n", "--session", "s1").out()).isEqualTo("first\n");
        }
        try (MockLlmServer server = RunCommandTest.server(complete("second"))) {
            Cli.Run run = chat(server, "what number?\n", "--session", "s1");
            assertThat(run.out()).isEqualTo("(session s1: 1 request so far)\nsecond\n");
            assertThat(RunCommandTest.messages(server.requests().getFirst()).toString()).contains("remember 7");
        }
    }

    @Test
    void aCancelledTurnStopsTheScriptStaysInTheSessionMarkedInterruptedAndTheNextChatSeesIt() throws Exception {
        AtomicReference<Runnable> interrupt = new AtomicReference<>();
        Interrupts interrupts = action -> {
            interrupt.set(action);
            return () -> interrupt.set(null);
        };
        MockTurn slow = MockTurn.content("Counting: " + "one ".repeat(200) + complete("never")).chunkSize(4).delayMs(20);
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(slow, MockTurn.content(complete("resumed"))));
             PipedOutputStream keys = new PipedOutputStream();
             PipedInputStream stdin = new PipedInputStream(keys)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Path data = dir.resolve("data");
            CompletableFuture<Integer> chat = Background.supply(() -> BellowsCommand.commandLine(stdin, out,
                    err, false, new Host(Map.of(), dir, interrupts, false)).execute("chat", "--base-url",
                    server.baseUrl().toString(), "--model", "mock", "--session", "c", "--data-dir", data.toString()));
            keys.write("Count slowly\nnot this one\n".getBytes(StandardCharsets.UTF_8));
            keys.flush();
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a hang guard, not a measure
            while ((interrupt.get() == null || !err.toString(StandardCharsets.UTF_8).contains("Counting: one"))
                    && System.nanoTime() < giveUp) {
                Thread.sleep(10);
            }
            interrupt.get().run(); // Ctrl-C while the answer streams
            while (!err.toString(StandardCharsets.UTF_8).contains("(cancelled") && System.nanoTime() < giveUp) {
                Thread.sleep(10);
            }
            keys.close();
            assertThat(chat.get(60, TimeUnit.SECONDS)).as("Ctrl-C stops a script: " + err).isEqualTo(130);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("(cancelled: the request stays in the conversation, marked as interrupted)\n"
                            + "(the lines after it are not run)\n")
                    .doesNotContain("not this one");
            assertThat(server.requests()).hasSize(1);

            Cli.Run next = chat(server, "Go on\n", "--session", "c");
            assertThat(next.status()).as(next.err()).isZero();
            assertThat(next.out()).isEqualTo("(session c: 1 request so far)\nresumed\n");

            JsonNode sent = RunCommandTest.messages(server.requests().get(1));
            List<String> roles = new ArrayList<>();
            sent.forEach(message -> roles.add(message.get("role").asString()));
            assertThat(roles).as("user and assistant still alternate").containsExactly("system", "user", "assistant",
                    "user");
            assertThat(sent.get(1).get("content").asString()).isEqualTo("Count slowly");
            String kept = sent.get(2).get("content").asString();
            assertThat(kept).as("what had streamed, then the marker the model reads").startsWith("Counting: one")
                    .endsWith("\n\n" + InterruptedTurn.MARKER).doesNotContain("never");
            assertThat(sent.get(3).get("content").asString()).isEqualTo("Go on");

            Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", data.toString(), "c");
            assertThat(show.out()).as(show.err()).contains("requests:  2 (2 steps, 4 messages)")
                    .contains("--- request 1, step 1 ---\n[user]\nCount slowly\n[assistant]\nCounting: one")
                    .contains(InterruptedTurn.MARKER + "\n\n--- request 2, step 1 ---\n[user]\nGo on\n");
        }
    }

    @Test
    void aFailedTurnInAScriptLetsTheRestRunAndEndsWithStatusOne() {
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.PLAN, complete("ok"))) {
            Cli.Run run = chat(server, "plan forever\nthen answer\n", "--max-iterations", "1");
            assertThat(run.status()).as(run.err()).isEqualTo(1);
            assertThat(run.err()).contains("> plan forever\n").contains("max_iterations: ")
                    .contains("> then answer\n");
            assertThat(run.out()).isEqualTo("ok\n");
        }
    }

    @Test
    void aTrailingBackslashContinuesTheLine() {
        try (MockLlmServer server = RunCommandTest.server(complete("ok"))) {
            Cli.Run run = chat(server, "first line\\\nsecond line\n");
            assertThat(run.out()).isEqualTo("ok\n");
            assertThat(run.err()).startsWith("> first line\n... second line\n");
            assertThat(RunCommandTest.messages(server.requests().getFirst()).toString())
                    .contains("first line\\nsecond line");
        }
    }

    @Test
    void aBadOptionIsAUsageErrorBeforeAnyRequest() {
        try (MockLlmServer server = RunCommandTest.server(complete("ok"))) {
            Cli.Run run = chat(server, "hi\n", "--tool-mode", "smoke");
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).startsWith("bellows chat: --tool-mode: unknown tool mode");
            assertThat(server.requests()).isEmpty();
        }
    }
}
