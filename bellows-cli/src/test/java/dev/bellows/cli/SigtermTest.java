package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM during an MCP tool call: the call is cancelled as Ctrl-C cancels it, nothing further
 * goes to the model, and the status is 143. (It used to close the servers under the loop,
 * whose failed call went back to the model in one more request before the process exited.)
 */
class SigtermTest {

    /** A guard against a hung child, not a measure of speed. */
    private static final long GIVE_UP_SECONDS = 120;

    @TempDir
    Path dir;

    @Test
    void sigterm_during_an_mcp_call_exits_143_with_nothing_more_sent_to_the_model() throws Exception {
        Path waitLog = dir.resolve("wait.log");
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(TerminalControlsTest.script("hostile-server.js").toString()) + "],"
                + " \"env\": {\"WAIT_LOG\": " + Cli.MAPPER.valueToTree(waitLog.toString()) + "}}}}");
        String wait = "<tool>{\"server_name\": \"hostile\", \"tool_name\": \"wait\", \"arguments\": {}}</tool>";
        try (MockLlmServer model = RunCommandTest.server(wait, complete("never asked"))) {
            List<String> command = new ArrayList<>(ChildJvm.bellows().java());
            command.addAll(List.of(BellowsCommand.class.getName(), "run", "--base-url", model.baseUrl().toString(),
                    "--model", "mock", "--mcp-config", dir.resolve("mcp.json").toString(), "wait for it"));
            Process child = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectOutput(dir.resolve("out.txt").toFile())
                    .redirectError(dir.resolve("err.txt").toFile())
                    .start();
            try {
                for (int i = 0; i < GIVE_UP_SECONDS * 20 && !Files.exists(waitLog) && child.isAlive(); i++) {
                    Thread.sleep(50);
                }
                assertThat(waitLog).as(Files.readString(dir.resolve("err.txt"))).exists(); // the call is in flight
                child.destroy(); // SIGTERM
                assertThat(child.waitFor(GIVE_UP_SECONDS, TimeUnit.SECONDS)).isTrue();
                String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
                assertThat(child.exitValue()).as(err).isEqualTo(143);
                assertThat(model.requests()).as("nothing sent to the model after the signal").hasSize(1);
                assertThat(Files.readString(dir.resolve("out.txt"))).isEmpty();
            } finally {
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
            }
        }
    }
}
