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
    void sigterm_during_an_mcp_call_stops_the_server_and_the_processes_it_started() throws Exception {
        Path waitLog = dir.resolve("wait.log");
        String wait = hostileWait(waitLog, ", \"WAIT_CHILD\": \"1\"");
        List<ProcessHandle> started = new ArrayList<>();
        try (MockLlmServer model = RunCommandTest.server(wait, complete("never asked"))) {
            Process child = runWithTheHostileServer(model);
            try {
                for (int i = 0; i < GIVE_UP_SECONDS * 20 && !Files.exists(waitLog) && child.isAlive(); i++) {
                    Thread.sleep(50);
                }
                assertThat(waitLog).as(Files.readString(dir.resolve("err.txt"))).exists(); // the call is in flight
                String[] pids = Files.readString(waitLog).strip().split(" ");
                for (String pid : List.of(pids).subList(1, pids.length)) {
                    started.add(ProcessHandle.of(Long.parseLong(pid)).orElseThrow());
                }
                assertThat(started).hasSize(2).allMatch(ProcessHandle::isAlive);
                child.destroy(); // SIGTERM
                assertThat(child.waitFor(GIVE_UP_SECONDS, TimeUnit.SECONDS)).isTrue();
                assertThat(child.exitValue()).isEqualTo(143);
                // gone once the command has ended, not some time later: bounded, not timed
                for (int i = 0; i < 20 * 20 && started.stream().anyMatch(ProcessHandle::isAlive); i++) {
                    Thread.sleep(50);
                }
                assertThat(started).as("the server (node) and the sleep its call started")
                        .noneMatch(ProcessHandle::isAlive);
            } finally {
                started.forEach(ProcessHandle::destroyForcibly);
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
            }
        }
    }

    @Test
    void sigterm_during_an_mcp_call_exits_143_with_nothing_more_sent_to_the_model() throws Exception {
        Path waitLog = dir.resolve("wait.log");
        String wait = hostileWait(waitLog, "");
        try (MockLlmServer model = RunCommandTest.server(wait, complete("never asked"))) {
            Process child = runWithTheHostileServer(model);
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

    /**
     * Writes mcp.json with hostile-server.js as "hostile" (its {@code wait} tool logs its
     * process ids to {@code waitLog}, then waits; {@code moreEnv} adds members to its env);
     * the model's answer that calls that tool.
     */
    private String hostileWait(Path waitLog, String moreEnv) throws Exception {
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(TerminalControlsTest.script("hostile-server.js").toString()) + "],"
                + " \"env\": {\"WAIT_LOG\": " + Cli.MAPPER.valueToTree(waitLog.toString()) + moreEnv + "}}}}");
        return "<tool>{\"server_name\": \"hostile\", \"tool_name\": \"wait\", \"arguments\": {}}</tool>";
    }

    /** {@code bellows run} in a JVM of its own against {@code model}, with mcp.json; out.txt and err.txt. */
    private Process runWithTheHostileServer(MockLlmServer model) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.bellows().java());
        command.addAll(List.of(BellowsCommand.class.getName(), "run", "--base-url", model.baseUrl().toString(),
                "--model", "mock", "--mcp-config", dir.resolve("mcp.json").toString(), "wait for it"));
        return new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
    }
}
