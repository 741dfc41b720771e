package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What reaches the model stays within the size limits, whatever a server or an earlier answer holds. */
class SizeLimitsTest {

    @TempDir
    Path dir;

    private Cli.Run bellows(String... args) {
        return Cli.run(new Host(Map.of("PATH", System.getenv("PATH")), dir, Interrupts.NONE, false), args);
    }

    private static String lastUserMessage(RecordedRequest request) {
        var messages = RunCommandTest.messages(request);
        return messages.get(messages.size() - 1).get("content").asString();
    }

    @Test
    void a_tool_result_over_the_limit_reaches_the_model_cut_with_a_note() throws Exception {
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(TerminalControlsTest.script("hostile-server.js").toString()) + "]}}}");
        String big = "<tool>{\"server_name\": \"hostile\", \"tool_name\": \"big\", \"arguments\": {}}</tool>";
        try (MockLlmServer model = RunCommandTest.server(big, complete("done"), big, complete("done"))) {
            Cli.Run byDefault = bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--mcp-config", "mcp.json", "read it");
            assertThat(byDefault.status()).as(byDefault.err()).isZero();
            String observation = lastUserMessage(model.requests().get(1));
            assertThat(observation).contains("line of a big result").contains("[this result was cut: ")
                    .contains("to keep it within 25,000 tokens");
            assertThat(new EstimatingTokenCounter().count(observation)).isBetween(20_000, 26_000);

            Cli.Run smaller = bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--mcp-config", "mcp.json", "--max-tool-result-tokens", "1000", "read it");
            assertThat(smaller.status()).as(smaller.err()).isZero();
            String cut = lastUserMessage(model.requests().get(3));
            assertThat(cut).contains("to keep it within 1,000 tokens");
            assertThat(new EstimatingTokenCounter().count(cut)).isBetween(800, 1_100);
        }
    }

    @Test
    void a_single_turn_larger_than_max_context_tokens_is_cut_in_its_middle_never_sent_whole() {
        String huge = "start of the answer " + "word ".repeat(400_000) + " end of the answer"; // 2 MB
        try (MockLlmServer model = MockLlmServer.start(MockScript.of(
                MockTurn.content(RunCommandTest.call("task_completion",
                        "{\"result\": \"" + huge + "\"}")).chunkSize(64 * 1024),
                MockTurn.content(complete("short"))))) {
            String data = dir.resolve("data").toString();
            Cli.Run first = bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--session", "s", "--data-dir", data, "write a lot");
            assertThat(first.status()).as(first.err()).isZero();
            Cli.Run second = bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--session", "s", "--data-dir", data, "--max-context-tokens", "4000", "and now?");
            assertThat(second.status()).as(second.err()).isZero();
            RecordedRequest request = model.requests().get(1);
            String body = request.body().toString();
            int tokens = 0;
            for (var message : RunCommandTest.messages(request)) {
                tokens += new EstimatingTokenCounter().count(message.get("content").asString()) + 4;
            }
            assertThat(tokens).as("the request's tokens, as the memory counts them").isLessThanOrEqualTo(4000);
            assertThat(body).contains("start of the answer").contains("end of the answer")
                    .contains("characters cut here to keep the request within the context limit").contains("and now?");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
