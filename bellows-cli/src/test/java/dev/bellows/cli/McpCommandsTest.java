package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.NpmPackages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows tools} and {@code bellows run} with MCP servers, end to end: the official
 * reference server from the npm registry (installed by the test into {@code .cache/mcp}),
 * broken servers written here, and the agent loop scripted by {@link MockLlmServer}.
 */
class McpCommandsTest {

    static final String KEY = "sk-test-SECRET-0123456789";
    static final String EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31";
    static final String FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31";

    static Path everything;

    @TempDir
    Path dir;

    @BeforeAll
    static void install() {
        everything = NpmPackages.install(NpmPackages.cacheDir("mcp"), EVERYTHING, FILESYSTEM)
                .resolve("@modelcontextprotocol/server-everything/dist/index.js");
    }

    Cli.Run run(String... args) {
        return Cli.run(new Host(Map.of("PATH", System.getenv("PATH"), "OPENAI_API_KEY", KEY), dir, Interrupts.NONE,
                false), args);
    }

    /**
     * Writes mcp.json with the everything server and, when asked, a broken one, retried after
     * ten minutes: it stays "retrying" while the test looks (closing ends the wait).
     */
    void config(boolean withBroken) throws IOException {
        config(withBroken ? ", \"retryDelaySeconds\": 600" : null);
    }

    /** As {@link #config(boolean)}, the broken server with these extra keys; none when null. */
    void config(String broken) throws IOException {
        Files.writeString(dir.resolve("quit.sh"), "echo 'fatal: no token' >&2\nexit 3\n");
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {"
                + "\"everything\": {\"command\": \"node\", \"args\": [" + Cli.MAPPER.valueToTree(everything.toString())
                + "], \"env\": {\"SOME_TOKEN\": \"" + KEY + "\"}}"
                + (broken != null ? ", \"broken\": {\"command\": \"sh\", \"args\": [\"quit.sh\"], \"cwd\": \".\""
                        + broken + "}" : "")
                + "}}");
    }

    @Test
    void tools_lists_the_built_ins_and_the_servers_tools_and_exits_0_when_all_started() throws IOException {
        config(false);
        Set<Long> before = descendants();
        Cli.Run run = run("tools", "--mcp-config", "mcp.json");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("local/task_completion\n", "everything/echo\n", "everything/get-sum\n",
                "\"required\":[\"message\"]");
        assertThat(run.err()).isEmpty();
        assertNoNewProcesses(before);
    }

    @Test
    void tools_lists_failed_servers_with_their_error_and_exits_1() throws IOException {
        config(true);
        Cli.Run text = run("tools", "--mcp-config", "mcp.json");
        assertThat(text.status()).isEqualTo(1);
        assertThat(text.out()).contains("everything/echo", "MCP servers that failed to start:",
                "broken: the process exited with status 3; stderr: fatal: no token; retrying in ",
                " s (attempt 1 of 5 failed)");
        assertThat(text.err()).contains("bellows tools: MCP server \"broken\" failed to start");

        Cli.Run json = run("tools", "--mcp-config", "mcp.json", "--output", "json");
        assertThat(json.status()).isEqualTo(1);
        JsonNode document = Cli.json(json.out());
        List<String> names = new ArrayList<>();
        document.get("tools").forEach(t -> names.add(t.get("server").asString() + "/" + t.get("name").asString()));
        assertThat(names).contains("local/update_plan", "everything/echo");
        JsonNode echo = find(document.get("tools"), "echo");
        assertThat(echo.get("description").asString()).isNotBlank();
        assertThat(echo.at("/input_schema/properties/message/type").asString()).isEqualTo("string");
        assertThat(document.get("servers").get(0).get("status").asString()).isEqualTo("started");
        assertThat(document.get("servers").get(1).get("status").asString()).isEqualTo("retrying");
        assertThat(document.get("servers").get(1).get("error").asString()).contains("status 3");
        assertThat(document.get("servers").get(1).get("failed_attempts").asInt()).isEqualTo(1);
        assertThat(document.get("servers").get(1).get("max_attempts").asInt()).isEqualTo(5);
        assertThat(text.out() + text.err() + json.out() + json.err()).doesNotContain(KEY);
    }

    @Test
    void call_runs_one_tool_through_the_argument_checking_and_prints_what_the_model_reads() throws IOException {
        config(", \"startAttempts\": 2, \"retryDelaySeconds\": 0.05");
        Cli.Run echo = run("tools", "--mcp-config", "mcp.json", "--call", "everything/echo",
                "--args", "{\"message\": \"hi there\"}");
        assertThat(echo.status()).as(echo.err()).isZero();
        assertThat(echo.out()).isEqualTo("<observation>\n<everything.echo>\nEcho: hi there\n</everything.echo>\n"
                + "</observation>\n");

        Cli.Run bad = run("tools", "--mcp-config", "mcp.json", "--call", "everything/get-sum", "--args", "{\"a\": \"x\"}");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.out()).contains("<error>", "\"a\": expected number");

        Cli.Run broken = run("tools", "--mcp-config", "mcp.json", "--call", "broken/anything");
        assertThat(broken.status()).isEqualTo(1);
        assertThat(broken.out()).contains("server \"broken\" is unavailable", "status 3", "(given up after 2 attempts)");
        assertThat(broken.err()).contains("MCP server \"broken\" is given up on: failed after 2 attempts: the process "
                + "exited with status 3");

        Cli.Run local = run("tools", "--call", "local/task_completion", "--args", "{\"result\": \"done\"}");
        assertThat(local.status()).as(local.err()).isZero();
        assertThat(local.out()).contains("done");

        Cli.Run unknown = run("tools", "--mcp-config", "mcp.json", "--call", "nowhere/x");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("no MCP server named \"nowhere\"", "everything, broken");

        Cli.Run badJson = run("tools", "--call", "local/converse", "--args", "{\"message\": " + KEY);
        assertThat(badJson.status()).isEqualTo(2);
        assertThat(badJson.err()).contains("--args: invalid JSON").doesNotContain(KEY);
    }

    @Test
    void run_gives_the_agent_the_servers_tools_and_stops_every_server_at_the_end() throws IOException {
        config(true);
        Set<Long> before = descendants();
        String echo = "<tool>{\"server_name\": \"everything\", \"tool_name\": \"echo\", "
                + "\"arguments\": {\"message\": \"from the agent\"}}</tool>";
        String done = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"echoed\"}}</tool>";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(echo), MockTurn.content(done)))) {
            Cli.Run run = run("run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--mcp-config", "mcp.json", "--output", "jsonl", "use the echo tool");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.err()).contains("bellows run: MCP server \"broken\" is unavailable: the process exited "
                    + "with status 3").contains("running without its tools until it starts");
            JsonNode result = run.outJson().stream().filter(e -> e.get("type").asString().equals("tool_result"))
                    .findFirst().orElseThrow();
            assertThat(result.get("server_name").asString()).isEqualTo("everything");
            assertThat(result.get("result").asString()).contains("Echo: from the agent");

            String system = server.requests().getFirst().body().get("messages").get(0).get("content").asString();
            assertThat(system).contains("everything").contains("echo").contains("get-sum");
            String observation = server.requests().get(1).body().get("messages").toString();
            assertThat(observation).contains("Echo: from the agent");
            assertThat(run.out() + run.err()).doesNotContain(KEY);
        }
        assertNoNewProcesses(before);
    }

    @Test
    void ctrl_c_during_an_mcp_call_ends_the_run_cancelled_with_no_server_left() throws Exception {
        config(false);
        Set<Long> before = descendants();
        java.util.concurrent.atomic.AtomicReference<Runnable> ctrlC = new java.util.concurrent.atomic.AtomicReference<>();
        Interrupts interrupts = action -> {
            ctrlC.set(action);
            return () -> ctrlC.set(null);
        };
        Host host = new Host(Map.of("PATH", System.getenv("PATH")), dir, interrupts, false);
        String longCall = "<tool>{\"server_name\": \"everything\", \"tool_name\": \"trigger-long-running-operation\", "
                + "\"arguments\": {\"duration\": 300, \"steps\": 300}}</tool>";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(longCall)))) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            java.util.concurrent.CompletableFuture<Integer> status = dev.bellows.testkit.Background.supply(
                    () -> BellowsCommand.commandLine(new java.io.ByteArrayInputStream(new byte[0]), out, err, false, host)
                            .execute("run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                                    "--mcp-config", "mcp.json", "--output", "jsonl", "wait for it"));
            for (int i = 0; i < 2400 && !(out.toString(java.nio.charset.StandardCharsets.UTF_8).contains("tool_call_end")
                    && ctrlC.get() != null); i++) {
                Thread.sleep(50); // until the tool runs; a bounded wait, not a timing assertion
            }
            ctrlC.get().run();
            assertThat(status.get(120, java.util.concurrent.TimeUnit.SECONDS)).as(err.toString()).isEqualTo(130);
            assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("\"reason\":\"cancelled\"");
        }
        assertNoNewProcesses(before);
    }

    @Test
    void call_waits_for_a_server_whose_first_starts_fail_and_runs_the_tool_once_it_is_up() throws IOException {
        // Fails its first two starts, then runs the everything server.
        Files.writeString(dir.resolve("late.sh"), """
                n=$(( $(cat starts 2>/dev/null || echo 0) + 1 )); echo "$n" > starts
                if [ "$n" -le 2 ]; then echo "start $n: not ready" >&2; exit 1; fi
                exec node "$1"
                """);
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"late\": {\"command\": \"sh\", \"args\": "
                + "[\"late.sh\", " + Cli.MAPPER.valueToTree(everything.toString()) + "], \"cwd\": \".\", "
                + "\"retryDelaySeconds\": 0.05}}}");
        Set<Long> before = descendants();
        Cli.Run echo = run("tools", "--mcp-config", "mcp.json", "--call", "late/echo", "--args", "{\"message\": \"late\"}");
        assertThat(echo.status()).as(echo.err()).isZero();
        assertThat(echo.out()).contains("Echo: late");
        assertThat(echo.err()).contains("bellows tools: MCP server \"late\" is up; its tools are available now");
        assertThat(Files.readString(dir.resolve("starts")).strip()).isEqualTo("3");
        assertNoNewProcesses(before);
    }

    private static JsonNode find(JsonNode tools, String name) {
        for (JsonNode tool : tools) {
            if (tool.get("name").asString().equals(name)) {
                return tool;
            }
        }
        throw new AssertionError("no tool " + name);
    }

    static Set<Long> descendants() {
        return ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    static void assertNoNewProcesses(Set<Long> before) {
        List<String> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> !before.contains(p.pid()))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
        assertThat(left).as("processes left running").isEmpty();
    }
}
