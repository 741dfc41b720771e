package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.temporal.DurableAgent;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable runs from the command line, on Temporal's Java test server port-bound on 127.0.0.1:
 * real {@code bellows worker} processes, one of them killed with SIGKILL at a step of the run,
 * another carrying the run on; the tool calls counted by the MCP server that made them (each
 * worker starts its own, all append to one file); the client a real {@code bellows run
 * --temporal} process following live. The slow tests of bellows-temporal are all here, once.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DurableRunsTest {

    private static final String SECRET = "sk-durable-secret-0123456789";

    private static TemporalTestServer temporal;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @BeforeAll
    static void startTemporal() throws IOException {
        temporal = TemporalTestServer.start();
    }

    @AfterAll
    static void stopTemporal() throws InterruptedException {
        temporal.close();
    }

    @AfterEach
    void stopProcesses() throws Exception {
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".err")).toList()) {
                System.err.println("== " + file.getFileName() + "\n" + Files.readString(file));
            }
        }
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String call(String text) {
        return "<tool>{\"server_name\": \"counter\", \"tool_name\": \"count\", \"arguments\": {\"text\": \"" + text
                + "\"}}</tool>";
    }

    private static String done(String result) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + result + "\"}}</tool>";
    }

    private static List<String> java() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"));
    }

    /** A worker process on {@code queue}, up and polling when this returns. */
    private Process worker(String queue, MockLlmServer model, Path calls) throws Exception {
        Path config = dir.resolve("mcp.json");
        if (!Files.exists(config)) {
            List<String> command = new ArrayList<>(java());
            command.add(CountingMcpServer.class.getName());
            command.add(calls.toString());
            String args = command.subList(1, command.size()).stream()
                    .map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                    .reduce((a, b) -> a + ", " + b).orElseThrow();
            Files.writeString(config, "{\"mcpServers\": {\"counter\": {\"command\": \"" + command.getFirst()
                    + "\", \"args\": [" + args + "]}}}");
        }
        List<String> command = new ArrayList<>(java());
        command.addAll(List.of(BellowsCommand.class.getName(), "worker", "--temporal", temporal.address(),
                "--task-queue", queue, "--base-url", model.baseUrl().toString(), "--model", "mock",
                "--mcp-config", config.toString(), "--heartbeat-timeout-seconds", "2"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(dir.resolve("worker-" + processes.size() + ".err").toFile());
        builder.environment().put("OPENAI_API_KEY", SECRET);
        Process process = builder.start();
        processes.add(process);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("the worker's first line; its stderr: %s",
                Files.readString(dir.resolve("worker-" + (processes.size() - 1) + ".err")))
                .startsWith("worker polling task queue " + queue);
        return process;
    }

    /** A client process: {@code bellows run --temporal ... ARGS}. */
    private Process client(String queue, String... args) throws IOException {
        List<String> command = new ArrayList<>(java());
        command.addAll(List.of(BellowsCommand.class.getName(), "run", "--temporal", temporal.address(),
                "--task-queue", queue));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(dir.resolve("client.err").toFile());
        builder.environment().remove("OPENAI_API_KEY");
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    /** Reads the client's lines into {@code lines} until one matches, and returns it (null at the end). */
    private static String readUntil(BufferedReader out, List<String> lines, Predicate<String> until) throws IOException {
        for (String line; (line = out.readLine()) != null; ) {
            lines.add(line);
            if (until.test(line)) {
                return line;
            }
        }
        return null;
    }

    private static List<String> callsMade(Path calls) throws IOException {
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    @Test
    void aWorkerKilledMidAnswerIsReplacedAndTheFollowerSeesTheRetryAndTheRest() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        String slow = "<thinking>" + "weighing it ".repeat(150) + "</thinking>Now counting. " + call("a");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content(slow).chunkSize(6).delayMs(25))        // the worker dies in this one
                .turn(MockTurn.content("Again. " + call("a")).chunkSize(6))   // made again on the other worker
                .turn(MockTurn.content(done("counted once")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            Process first = worker(queue, model, calls);
            Process client = client(queue, "--output", "jsonl", "count once");
            BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.contains("\"thinking_content\""))).as("live thinking").isNotNull();
            first.destroyForcibly();                         // SIGKILL, mid-answer
            first.waitFor();
            worker(queue, model, calls);
            String end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            assertThat(client.waitFor()).as("exit status; stderr %s", Files.readString(dir.resolve("client.err"))).isZero();
            assertThat(end).isEqualTo("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"counted once\"}");
            int retry = indexOf(lines, "\"type\":\"retry\"");
            assertThat(retry).as("a retry event after the broken answer: %s", lines).isPositive();
            assertThat(lines.get(retry)).contains("\"attempt\":2").contains("stopped");
            assertThat(lines.subList(retry, lines.size())).anyMatch(l -> l.startsWith("{\"type\":\"tool_result\"")
                    && l.contains("\"result\":\"counted a\""));
            assertThat(callsMade(calls)).containsExactly("a");
        }
    }

    @Test
    void aWorkerKilledAfterAToolCallNeverMakesItAgainAndDetachThenFollowShowsTheRun() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("First " + call("b")).chunkSize(8))
                .turn(MockTurn.content("Thinking it over. ".repeat(60) + done("never")).chunkSize(6).delayMs(25))
                .turn(MockTurn.content("Second " + call("c")).chunkSize(8))
                .turn(MockTurn.content(done("b and c")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            Process first = worker(queue, model, calls);
            Process detach = client(queue, "--detach", "count b then c");
            String id = new String(detach.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(detach.waitFor()).isZero();
            assertThat(id).startsWith("bellows-");

            Process follow = client(queue, "--output", "jsonl", "--follow", id);
            BufferedReader out = new BufferedReader(new InputStreamReader(follow.getInputStream(), StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.startsWith("{\"type\":\"tool_result\""))).isNotNull();
            first.destroyForcibly();                         // SIGKILL, once the call's result is recorded
            first.waitFor();
            worker(queue, model, calls);
            String end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            assertThat(follow.waitFor()).isZero();
            assertThat(end).contains("\"result\":\"b and c\"");
            assertThat(callsMade(calls)).containsExactly("b", "c");

            // A late follower gets the whole run from its start.
            Process late = client(queue, "--output", "jsonl", "--follow", id);
            List<String> all = new String(late.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertThat(late.waitFor()).isZero();
            assertThat(all.getFirst()).isEqualTo("{\"type\":\"loop_start\",\"task\":\"count b then c\"}");
            assertThat(all.getLast()).isEqualTo(end);
            assertThat(all.stream().filter(l -> l.startsWith("{\"type\":\"tool_result\""))).hasSize(2);

            // The key lives on the workers only: the workflow's history never holds it.
            WorkflowClient client = DurableAgent.client(WorkflowServiceStubs.newServiceStubs(
                    WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build()), "default");
            String history = client.fetchHistory(id).toJson(false);
            assertThat(history).contains("BellowsModelCall").doesNotContain(SECRET);
            client.getWorkflowServiceStubs().shutdown();
        }
    }

    @Test
    void theClientNeedsNoModelOptionsAndRefusesThem() {
        Cli.Run refused = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--temporal",
                temporal.address(), "--model", "gpt-4o", "hello");
        assertThat(refused.status()).isEqualTo(2);
        assertThat(refused.err()).contains("--model: set it on the workers");
        Cli.Run noTask = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--temporal", temporal.address());
        assertThat(noTask.status()).isEqualTo(2);
        assertThat(noTask.err()).contains("TASK");
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }
}
