package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.SessionInfo;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real {@code bellows run --session} process after its run's first
 * iteration, while the model's second answer streams: the session keeps the earlier, completed
 * run whole, nothing of the killed one (neither its question, nor its first iteration, nor
 * the plan that iteration made), and the next run continues from the completed one.
 */
class SessionKillTest {

    @TempDir
    Path dir;

    @Test
    void aRunKilledAfterItsFirstIterationStoresNothingOfItAndTheNextRunContinues() throws Exception {
        Path data = dir.resolve("data");
        try (MockLlmServer server = RunCommandTest.server(complete("first done"))) {
            Cli.Run first = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--base-url",
                    server.baseUrl().toString(), "--model", "mock", "--session", "killed", "--data-dir", data.toString(),
                    "First task");
            assertThat(first.status()).as(first.err()).isZero();
        }
        MockTurn slow = MockTurn.content("<thinking>" + "still thinking ".repeat(400) + "</thinking>" + complete("never"))
                .chunkSize(8).delayMs(20);
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(RunCommandTest.PLAN), slow))) {
            List<String> command = new ArrayList<>(ChildJvm.bellows().java());
            command.addAll(List.of(BellowsCommand.class.getName(), "run", "--base-url", server.baseUrl().toString(),
                    "--model", "mock", "--output", "jsonl", "--session", "killed", "--data-dir", data.toString(),
                    "Read the file"));
            Process child = new ProcessBuilder(command)
                    .redirectError(dir.resolve("child.err").toFile())
                    .start();
            try (BufferedReader events = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                boolean secondIteration = false;
                for (String line; (line = events.readLine()) != null; ) {
                    if (line.equals("{\"type\":\"iteration_start\",\"iteration\":2}")) {
                        secondIteration = true;
                    } else if (secondIteration && line.contains("\"thinking_content\"")) {
                        break;                  // the second answer is streaming: its turn is in flight
                    }
                }
                assertThat(secondIteration).as("the child reached the second answer; its stderr: %s",
                        Files.readString(dir.resolve("child.err"))).isTrue();
                child.toHandle().destroyForcibly();     // SIGKILL
                child.waitFor();
            }
        }

        try (SqliteSessionStore store = SqliteSessionStore.open(data)) {
            SessionInfo info = store.find("killed").orElseThrow();
            assertThat(info.turns()).as("the completed run only").isEqualTo(1);
            assertThat(info.plan().steps()).as("the killed run's plan is not stored").isEmpty();
            List<Message> turn = store.turns("killed").orElseThrow().getFirst();
            assertThat(turn).extracting(Message::role).containsExactly(Role.USER, Role.ASSISTANT);
            assertThat(turn.getFirst()).isEqualTo(Message.user("First task"));
        }

        try (MockLlmServer server = RunCommandTest.server(complete("done"))) {
            Cli.Run next = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--base-url",
                    server.baseUrl().toString(), "--session", "killed", "--data-dir", data.toString(), "Go on");
            assertThat(next.status()).as(next.err()).isZero();
            assertThat(next.out()).isEqualTo("done\n");
            String sent = RunCommandTest.messages(server.requests().getFirst()).toString();
            assertThat(sent).contains("First task").contains("Go on").doesNotContain("Read the file")
                    .doesNotContain("still thinking");
        }
    }
}
