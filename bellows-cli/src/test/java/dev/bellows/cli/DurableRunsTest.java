package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aAgentTool;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.a2a.client.TaskEvents;
import dev.bellows.temporal.DurableAgent;
import dev.bellows.testkit.Background;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import io.temporal.api.common.v1.WorkflowExecution;
import com.google.protobuf.Message;
import dev.bellows.temporal.internal.DeflateCodec;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable runs from the command line, on Temporal's Java test server port-bound on 127.0.0.1:
 * real {@code bellows worker} processes, one of them killed with SIGKILL at a step of the run
 * (before a model call, mid-answer, after a tool call), another carrying the run on; the tool
 * calls counted by the MCP server that made them (each worker starts its own, all append to one
 * file); the client {@code bellows run --temporal} with no model option and no key, a real
 * process wherever it is followed live, signalled, or must be seen while it runs (the follower of
 * a worker that is killed among them), and the same command in this JVM ({@link Cli}) where its
 * output is read once it has ended: a JVM's start-up less each. The slow tests of
 * bellows-temporal are all here, once.
 *
 * <p>The worker to kill is the one the server says holds the step (the identity, {@code
 * PID@host}, of the worker that took the activity), not a guess.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DurableRunsTest {

    private static final String SECRET = "sk-durable-secret-0123456789";
    /**
     * Seconds before a silent worker's call is taken over: long enough that a worker on a loaded
     * two-core machine is not taken for dead (a false takeover would use up the script's turns out
     * of order), short enough to keep the kill tests quick.
     */
    private static final String HEARTBEAT_TIMEOUT = "10";

    /**
     * The frontend patience of the clients that wait one out (a lost frontend, a closed port), in
     * place of the default 30 s. They say they wait after 2 s (a lost frontend) and 3 s (a port
     * that refuses), by their own clocks, and give up at the patience: a client says it while it
     * still runs for 3 s and 2 s, in which the test, looking every 100 ms, sees it unless its own
     * JVM stalls for that long. Each second more is a second the two tests wait for nothing (10 s
     * cost them 10 s more in all).
     */
    private static final String PATIENCE = "5";

    private static TemporalTestServer temporal;
    private static WorkflowClient client;
    private static ChildJvm jvm;

    @TempDir
    Path dir;

    /** The frontend the workers and clients use: the test server, unless a test starts its own. */
    private String frontend;

    private final List<Process> processes = new ArrayList<>();
    private final Map<Long, Process> workers = new HashMap<>();
    private final Map<Process, Path> clientErrs = new HashMap<>();

    @BeforeAll
    static void startTemporal() throws IOException {
        temporal = TemporalTestServer.start();
        client = DurableAgent.client(WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build()), "default");
        // The workers and the client processes, some thirty JVMs, start on the class data of one worker
        // that ran first. (One made from a worker and a client that made a run together saves a
        // worker 0.8 s of CPU and a client 0.25 s, but its training took 50 s more on the loaded
        // two-core machine: the two JVMs start side by side, then each writes its archive.)
        jvm = ChildJvm.trained(List.of(BellowsCommand.class.getName(), "worker", "--temporal", temporal.address(),
                        "--task-queue", "training-" + UUID.randomUUID(), "--base-url", "http://127.0.0.1:9/v1",
                        "--model", "mock"),
                Map.of("OPENAI_API_KEY", "sk-training-not-a-key"), "worker polling task queue");
    }

    @AfterAll
    static void stopTemporal() throws InterruptedException {
        client.getWorkflowServiceStubs().shutdown();
        temporal.close();
    }

    @AfterEach
    void stopProcesses() throws Exception {
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".err")).sorted().toList()) {
                String err = Files.readString(file).lines().filter(l -> !l.startsWith("WARNING: "))
                        .collect(Collectors.joining("\n"));
                if (!err.isBlank()) {
                    System.err.println("== " + file.getFileName() + "\n" + err);
                }
            }
        }
    }

    private static String call(String text) {
        return "<tool>{\"server_name\": \"counter\", \"tool_name\": \"count\", \"arguments\": {\"text\": \"" + text
                + "\"}}</tool>";
    }

    private static String done(String result) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + result + "\"}}</tool>";
    }

    /** {@code java OPTIONS -cp CLASSPATH} of the workers and clients. */
    private static List<String> java() {
        return jvm.java();
    }

    /** servers/counting-server.js: the MCP server each worker starts, which counts the calls in one file. */
    private static String countingServer() {
        try {
            return Path.of(DurableRunsTest.class.getResource("/servers/counting-server.js").toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code count} worker processes on {@code queue}, all up and polling when this returns. */
    private List<Process> workers(int count, String queue, MockLlmServer model, Path calls, String... options)
            throws Exception {
        return workers(Map.of(), count, queue, model, calls, options);
    }

    /** The same, with {@code env} added to their environment. */
    private List<Process> workers(Map<String, String> env, int count, String queue, MockLlmServer model, Path calls,
                                  String... options) throws Exception {
        Path config = dir.resolve("mcp.json");
        if (!Files.exists(config)) {
            String args = List.of(countingServer(), calls.toString()).stream()
                    .map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                    .collect(Collectors.joining(", "));
            Files.writeString(config, "{\"mcpServers\": {\"counter\": {\"command\": \"node\", \"args\": [" + args
                    + "]}}}");
        }
        Map<Process, Path> started = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            List<String> command = new ArrayList<>(java());
            command.addAll(List.of(BellowsCommand.class.getName(), "worker", "--temporal", frontend(),
                    "--task-queue", queue, "--base-url", model.baseUrl().toString(), "--model", "mock",
                    "--mcp-config", config.toString(), "--heartbeat-timeout-seconds", HEARTBEAT_TIMEOUT));
            command.addAll(List.of(options));
            String name = "worker-" + workers.size();
            Path out = dir.resolve(name + ".out");
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                    .redirectError(dir.resolve(name + ".err").toFile());
            builder.environment().put("OPENAI_API_KEY", SECRET);
            builder.environment().putAll(env);
            Process process = builder.start();
            processes.add(process);
            workers.put(process.pid(), process);
            started.put(process, out);
        }
        for (Map.Entry<Process, Path> worker : started.entrySet()) {
            while (!Files.readString(worker.getValue()).contains("\n")) {
                assertThat(worker.getKey().isAlive()).as("%s stopped before polling", worker.getValue()).isTrue();
                Thread.sleep(100);
            }
            assertThat(Files.readString(worker.getValue())).startsWith("worker polling task queue " + queue);
        }
        return List.copyOf(started.keySet());
    }

    /** A client process: {@code bellows run --temporal ... ARGS}, with no key in its environment. */
    private Process client(String queue, String... args) throws IOException {
        // env --default-signal: a build started in the background ignores SIGINT, and an ignored
        // signal is inherited down to this process, whose JVM would then never see the test's Ctrl-C.
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT"));
        command.addAll(java());
        command.addAll(List.of(BellowsCommand.class.getName(), "run", "--temporal", frontend(),
                "--task-queue", queue));
        command.addAll(List.of(args));
        Path err = dir.resolve("client-" + clientErrs.size() + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
        builder.environment().keySet().removeIf(name -> name.endsWith("_API_KEY"));
        Process process = builder.start();
        processes.add(process);
        clientErrs.put(process, err);
        return process;
    }

    /**
     * {@code bellows run --temporal ... ARGS} in this JVM, for a client whose output is read once
     * it has ended (one that is refused, starts a run detached, or runs or follows one to its
     * end or its wait): the same command, without a JVM's start-up. A client that must be seen
     * while it runs, signalled, or outlive a worker's death as a process of its own is one.
     */
    private Cli.Run clientInProcess(String queue, String... args) {
        List<String> command = new ArrayList<>(List.of("run", "--temporal", frontend(), "--task-queue", queue));
        command.addAll(List.of(args));
        Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), command.toArray(String[]::new));
        // a client has no key to show, and shows none the model repeated (the workers redact it)
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
        return run;
    }

    private String frontend() {
        return frontend != null ? frontend : temporal.address();
    }

    /** What the client has written to its standard error so far. */
    private String errorOf(Process client) throws IOException {
        return Files.readString(clientErrs.get(client));
    }

    /**
     * Waits until the client's standard error holds {@code part} (a minute at most: what it says
     * is due within seconds), and says whether the client was still running then.
     */
    private boolean saidWhileRunning(Process client, String part) throws Exception {
        for (int i = 0; !errorOf(client).contains(part); i++) {
            assertThat(client.isAlive()).as("the client ended without saying %s: %s", part, errorOf(client)).isTrue();
            assertThat(i).as("the client has not said %s: %s", part, errorOf(client)).isLessThan(600);
            Thread.sleep(100);
        }
        return client.isAlive();
    }

    /** The workflow id of the run a client in this JVM started, from its standard error. */
    private static String workflowId(String err) {
        Matcher m = Pattern.compile("durable run (bellows-\\S+)").matcher(err);
        assertThat(m.find()).as("a workflow id in %s", err).isTrue();
        return m.group(1);
    }

    /** The workflow id of the run a client started: it says so on stderr. */
    private String workflowId(Process run) throws Exception {
        Pattern said = Pattern.compile("durable run (bellows-\\S+)");
        while (true) {
            Matcher m = said.matcher(Files.readString(clientErrs.get(run)));
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(100);
        }
    }

    private static BufferedReader lines(Process process) {
        return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
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

    private static DescribeWorkflowExecutionResponse describe(String id) {
        return client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id)).build());
    }

    /** The worker process the server says is making the run's model call now. */
    private Process makingTheModelCall(String id) {
        for (PendingActivityInfo activity : describe(id).getPendingActivitiesList()) {
            if (activity.getActivityType().getName().equals("BellowsModelCall")
                    && activity.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) {
                return worker(activity.getLastWorkerIdentity());
            }
        }
        throw new AssertionError("no model call in flight: " + describe(id).getPendingActivitiesList());
    }

    /** The worker process that made the run's last tool call, as its history says. */
    private Process madeTheLastToolCall(String id) {
        Set<Long> toolCalls = new java.util.HashSet<>();
        String identity = null;
        for (HistoryEvent event : client.fetchHistory(id).getEvents()) {
            if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                    && event.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("BellowsToolCall")) {
                toolCalls.add(event.getEventId());
            }
            if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
                    && toolCalls.contains(event.getActivityTaskStartedEventAttributes().getScheduledEventId())) {
                identity = event.getActivityTaskStartedEventAttributes().getIdentity();
            }
        }
        assertThat(identity).as("a tool call in the history").isNotNull();
        return worker(identity);
    }

    /** Waits until the run waits in a durable timer (a retry's delay), when none of its calls is in flight. */
    private static void waitsInATimer(String id) throws InterruptedException {
        for (int i = 0; client.fetchHistory(id).getEvents().stream()
                .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED); i++) {
            assertThat(i).as("the run %s never waited in a timer", id).isLessThan(1200);
            Thread.sleep(50);
        }
    }

    private Process worker(String identity) {
        long pid = Long.parseLong(identity.substring(0, identity.indexOf('@')));
        Process process = workers.get(pid);
        assertThat(process).as("worker %s among %s", identity, workers.keySet()).isNotNull();
        return process;
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();                      // SIGKILL
        process.waitFor();
    }

    /**
     * The history, its payloads decoded (those over 4 KiB are deflated: the raw history would hide
     * a key in them), and every process's output: the key is in none of them. Returns how many
     * payloads were deflated.
     */
    private long noSecretAnywhere(String id) throws IOException {
        WorkflowExecutionHistory recorded = client.fetchHistory(id);
        History history = recorded.getHistory();
        List<Payload> payloads = new ArrayList<>();
        payloads(history, payloads);
        StringBuilder decoded = new StringBuilder();
        for (Payload payload : new DeflateCodec().decode(payloads)) {
            decoded.append(payload.getData().toStringUtf8()).append('\n');
        }
        assertThat(payloads).isNotEmpty();
        assertThat(recorded.toJson(false)).contains("BellowsModelCall").doesNotContain(SECRET);
        assertThat(decoded.toString()).doesNotContain(SECRET);
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".err") || f.toString().endsWith(".out")).toList()) {
                assertThat(Files.readString(file)).as(file.getFileName().toString()).doesNotContain(SECRET);
            }
        }
        return payloads.stream().filter(p -> p.getMetadataMap().containsKey("encoding")
                && p.getMetadataMap().get("encoding").toStringUtf8().equals(DeflateCodec.ENCODING)).count();
    }

    /** Every payload in a message, however deep (inputs, results, failures, heartbeat details, markers). */
    private static void payloads(Message message, List<Payload> into) {
        if (message instanceof Payload payload) {
            into.add(payload);
            return;
        }
        for (Object value : message.getAllFields().values()) {
            for (Object item : value instanceof List<?> list ? list : List.of(value)) {
                if (item instanceof Message inner) {
                    payloads(inner, into);
                }
            }
        }
    }

    @Test
    void aWorkerKilledMidAnswerIsReplacedAndTheFollowerSeesTheRetryAndTheRest() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        String slow = "<thinking>" + "weighing it ".repeat(400) + "</thinking>Now counting. " + call("a");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content(slow).chunkSize(6).delayMs(25))        // the worker dies in this one
                .turn(MockTurn.content("Again. " + call("a")).chunkSize(6))   // made again on the other worker
                .turn(MockTurn.content(done("counted once")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(2, queue, model, calls);
            Process run = client(queue, "--output", "jsonl", "count once");
            BufferedReader out = lines(run);
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.contains("\"thinking_content\""))).as("live thinking").isNotNull();
            // Past 4 KiB of live events (a heartbeat carried them all), so that the last heartbeat is deflated.
            int[] seen = {1};
            assertThat(readUntil(out, lines, l -> l.contains("\"thinking_content\"") && ++seen[0] >= 120))
                    .as("more live thinking").isNotNull();
            String id = workflowId(run);
            Process holder = makingTheModelCall(id);
            kill(holder);                                           // mid-answer
            String end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            assertThat(run.waitFor()).as("exit status; %s", lines).isZero();
            assertThat(end).isEqualTo("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"counted once\"}");
            int retry = indexOf(lines, "\"type\":\"retry\"");
            assertThat(retry).as("a retry event after the broken answer: %s", lines).isPositive();
            assertThat(lines.get(retry)).contains("\"attempt\":2").contains("stopped");
            assertThat(lines.subList(0, retry)).noneMatch(l -> l.startsWith("{\"type\":\"tool_result\""));
            assertThat(lines.subList(retry, lines.size())).anyMatch(l -> l.startsWith("{\"type\":\"tool_result\"")
                    && l.contains("\"result\":\"counted a\""));
            assertThat(callsMade(calls)).containsExactly("a");
            assertThat(model.turnsTaken()).isEqualTo(3);
            // The broken answer's last heartbeat is over 4 KiB, so deflated: the check read it inflated.
            assertThat(noSecretAnywhere(id)).isPositive();
        }
    }

    @Test
    void aWorkerKilledBeforeAModelCallLosesNothing() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.status(503).header("Retry-After", "15"))     // the run waits 15 s in a durable timer
                .turn(MockTurn.content("Counting. " + call("d")).chunkSize(8))
                .turn(MockTurn.content(done("d once")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            Process only = workers(1, queue, model, calls).getFirst();
            Process run = client(queue, "--output", "jsonl", "count d");
            BufferedReader out = lines(run);
            List<String> lines = new ArrayList<>();
            String retry = readUntil(out, lines, l -> l.contains("\"type\":\"retry\""));
            assertThat(retry).contains("\"attempt\":2").contains("\"delay_ms\":15000");
            kill(only);                                      // no worker left; the next model call not made yet
            assertThat(model.turnsTaken()).isEqualTo(1);
            workers(1, queue, model, calls);
            String end;
            // The timer has nothing left to prove once the new worker polls: the server skips to it.
            try (AutoCloseable skipping = temporal.skippingIdleTime()) {
                end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            }
            assertThat(run.waitFor()).as("exit status; %s", lines).isZero();
            assertThat(end).contains("\"result\":\"d once\"");
            assertThat(lines.stream().filter(l -> l.contains("\"type\":\"retry\""))).hasSize(1);
            assertThat(callsMade(calls)).containsExactly("d");
            assertThat(model.turnsTaken()).isEqualTo(3);
        }
    }

    /**
     * bellows worker with the SDK's standard variables exports to an OTLP/HTTP receiver, and on
     * SIGTERM exports what is left: one trace, the run's span the parent of every call's span, a
     * chat span per attempt, each model request carrying its span's traceparent, no key received.
     * (Calls made by different workers: bellows-temporal's DurableTracingTest, in process.)
     */
    @Test
    void aWorkerExportsTheRunsTraceToAnOtlpReceiverAndFlushesOnSigterm() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.status(503))
                .turn(MockTurn.content("Counting. " + call("t")).chunkSize(8))
                .turn(MockTurn.content(done("t traced")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script);
             OtlpReceiver receiver = new OtlpReceiver()) {
            Process worker = workers(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                    "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"), 1, queue, model, calls).getFirst();
            Cli.Run run = clientInProcess(queue, "--output", "jsonl", "count t");
            List<String> lines = run.out().lines().toList();
            assertThat(run.status()).as("exit status; %s %s", lines, run.err()).isZero();
            assertThat(lines.getLast()).contains("t traced");
            worker.destroy();                                // SIGTERM: what is left is exported
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();

            var agent = receiver.spans("invoke_agent bellows");
            assertThat(agent).hasSize(1);
            assertThat(OtlpReceiver.attributes(agent.getFirst().getAttributesList()).get("bellows.loop.end_reason")
                    .getStringValue()).isEqualTo("task_completion");
            var chats = receiver.spans("chat mock");
            var tools = receiver.spans("execute_tool count");
            assertThat(chats).hasSize(3);
            assertThat(tools).hasSize(1);
            for (var span : java.util.stream.Stream.concat(chats.stream(), tools.stream()).toList()) {
                assertThat(span.getTraceId()).isEqualTo(agent.getFirst().getTraceId());
                assertThat(span.getParentSpanId()).isEqualTo(agent.getFirst().getSpanId());
            }
            List<String> traceparents = model.requests().stream().map(r -> r.header("traceparent")).toList();
            assertThat(traceparents).containsExactlyInAnyOrderElementsOf(chats.stream().map(chat -> "00-"
                    + OtlpReceiver.hex(chat.getTraceId()) + "-" + OtlpReceiver.hex(chat.getSpanId()) + "-01").toList());
            assertThat(chats.stream().map(c -> OtlpReceiver.attributes(c.getAttributesList()).get("error.type"))
                    .filter(java.util.Objects::nonNull).map(v -> v.getStringValue())).containsExactly("503");
            assertThat(receiver.received(SECRET)).as("the API key reached the receiver").isFalse();
        }
    }

    @Test
    void aWorkerKilledAfterAToolCallNeverMakesItAgainAndDetachThenFollowShowsTheRun() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("First " + call("b")).chunkSize(8))
                // The run then waits in a durable timer, nothing in flight: the worker is killed there.
                .turn(MockTurn.status(503).header("Retry-After", "60"))
                .turn(MockTurn.content("Then " + call("c")).chunkSize(8))
                .turn(MockTurn.content(done("b and c")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(2, queue, model, calls);
            Cli.Run detach = clientInProcess(queue, "--detach", "count b then c");
            String id = detach.out().strip();
            assertThat(detach.status()).as(detach.err()).isZero();
            assertThat(id).startsWith("bellows-");

            Process follow = client(queue, "--output", "jsonl", "--follow", id);
            BufferedReader out = lines(follow);
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.startsWith("{\"type\":\"tool_result\""))).contains("counted b");
            // Killed once the run waits out the retry, however far behind the follower is: it made the
            // only tool call so far, and has no call in flight.
            waitsInATimer(id);
            kill(madeTheLastToolCall(id));                   // its result is recorded: never made again
            String end;
            // The timer has nothing left to prove: the server skips to it.
            try (AutoCloseable skipping = temporal.skippingIdleTime()) {
                end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            }
            assertThat(follow.waitFor()).as("exit status; %s", lines).isZero();
            assertThat(end).contains("\"result\":\"b and c\"");
            assertThat(callsMade(calls)).containsExactly("b", "c");
            assertThat(lines.stream().filter(l -> l.contains("\"type\":\"retry\""))).hasSize(1);
            assertThat(model.turnsTaken()).isEqualTo(4);

            // A late follower gets the whole run from its start.
            Cli.Run late = clientInProcess(queue, "--output", "jsonl", "--follow", id);
            List<String> all = late.out().lines().toList();
            assertThat(late.status()).as(late.err()).isZero();
            assertThat(all.getFirst()).isEqualTo("{\"type\":\"loop_start\",\"task\":\"count b then c\"}");
            assertThat(all.getLast()).isEqualTo(end);
            assertThat(all.stream().filter(l -> l.startsWith("{\"type\":\"tool_result\""))).hasSize(3);
            noSecretAnywhere(id);
        }
    }

    /**
     * bellows serve --a2a --temporal: an A2A task is a durable run. Its only worker is killed once
     * the run's first tool call is made; a new worker carries the run on, and the A2A stream (the
     * server follows the workflow) ends with the task completed: the whole answer, each tool call
     * made once, no model turn lost or made twice.
     */
    @Test
    void anA2aTaskOfServeWithTemporalIsADurableRunThatOutlivesItsWorker() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("First " + call("b")).chunkSize(8))
                // Lost with the killed worker or answered, this call ends the same way: a retry.
                .turn(MockTurn.status(503).header("Retry-After", "2"))
                .turn(MockTurn.content("Then " + call("c")).chunkSize(8))
                .turn(MockTurn.content(done("b and c")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            Process first = workers(1, queue, model, calls).getFirst();
            List<String> command = new ArrayList<>(java());
            // the server needs no key: the model is the workers' (its own endpoints' model is never called here)
            command.addAll(List.of(BellowsCommand.class.getName(), "serve", "--a2a", "--temporal", frontend(),
                    "--task-queue", queue, "--base-url", "http://127.0.0.1:9/v1", "--model", "mock",
                    "--data-dir", dir.resolve("serve-data").toString()));
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(dir.resolve("serve.err").toFile());
            builder.environment().keySet().removeIf(name -> name.endsWith("_API_KEY"));
            Process serve = builder.start();
            processes.add(serve);
            String listening = readUntil(lines(serve), new ArrayList<>(), l -> l.startsWith("listening on "));
            assertThat(listening).as("serve started: %s", Files.readString(dir.resolve("serve.err"))).isNotNull();
            String url = listening.substring("listening on ".length()).strip();

            try (A2aClient a2a = A2aClient.builder(url).connect()) {
                java.util.concurrent.CompletableFuture<List<StreamResponse>> streamed = Background.supply(() -> {
                    List<StreamResponse> events = new ArrayList<>();
                    try (TaskEvents stream = a2a.stream(dev.bellows.a2a.Message.of(Role.USER,
                            List.of(Part.text("count b then c"))))) {
                        stream.forEach(events::add);
                    }
                    return events;
                });
                // the second model call comes once the tool call's result is recorded
                for (int i = 0; model.turnsTaken() < 2; i++) {
                    assertThat(streamed).as("the task ended before its second model call").isNotDone();
                    assertThat(i).as("no second model call").isLessThan(1200);
                    Thread.sleep(50);
                }
                assertThat(callsMade(calls)).containsExactly("b");
                kill(first);                                    // after its tool call, mid-run
                workers(1, queue, model, calls);
                List<StreamResponse> events = streamed.get(3, TimeUnit.MINUTES);

                StreamResponse last = events.getLast();
                assertThat(last.statusUpdate()).as("%s", events).isNotNull();
                assertThat(last.statusUpdate().status().state()).isEqualTo(TaskState.COMPLETED);
                String taskId = last.statusUpdate().taskId();
                List<dev.bellows.a2a.Artifact> answer = events.stream().filter(e -> e.artifactUpdate() != null
                        && Boolean.TRUE.equals(e.artifactUpdate().lastChunk())).map(e -> e.artifactUpdate().artifact())
                        .toList();
                assertThat(answer).hasSize(1);
                assertThat(A2aAgentTool.text(answer.getFirst().parts())).isEqualTo("b and c");
                assertThat(events.stream().filter(e -> e.statusUpdate() != null
                        && e.statusUpdate().status().state() == TaskState.COMPLETED)).hasSize(1);
                assertThat(callsMade(calls)).containsExactly("b", "c");
                assertThat(model.turnsTaken()).isEqualTo(4);
                // the store has the task as it ended
                assertThat(a2a.getTask(taskId).status().state()).isEqualTo(TaskState.COMPLETED);
            }
        }
    }

    @Test
    void ctrlCWhileFollowingCancelsTheWorkflow() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("<thinking>" + "a long thought ".repeat(2000) + "</thinking>" + call("never"))
                        .chunkSize(6).delayMs(25))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(1, queue, model, calls);
            Process run = client(queue, "--output", "jsonl", "think long");
            BufferedReader out = lines(run);
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.contains("\"thinking_content\""))).isNotNull();
            String id = workflowId(run);
            Process sigint = new ProcessBuilder("kill", "-INT", Long.toString(run.pid())).start();
            assertThat(sigint.waitFor()).isZero();
            String end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            assertThat(run.waitFor()).isEqualTo(130);
            assertThat(end).isEqualTo("{\"type\":\"loop_end\",\"reason\":\"cancelled\",\"result\":\"cancelled\"}");
            // The loop's end is its workflow's last step: the workflow closes with it.
            DescribeWorkflowExecutionResponse described = describe(id);
            while (described.getWorkflowExecutionInfo().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
                Thread.sleep(100);
                described = describe(id);
            }
            assertThat(described.getPendingActivitiesList()).isEmpty();
            assertThat(callsMade(calls)).isEmpty();
            assertThat(model.turnsTaken()).isEqualTo(1);
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
        Cli.Run builtIn = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--temporal",
                temporal.address(), "--agent", "react", "hello");
        assertThat(builtIn.status()).isEqualTo(2);
        assertThat(builtIn.err()).contains("--agent react: set it on the workers");
        // What a durable run cannot hold is refused when the worker starts, naming the path.
        Path config = dir.resolve("endpoints.json");
        try {
            Files.writeString(config, "{\"agents\": {\"lead\": {\"agents\": [\"helper\"]},"
                    + " \"helper\": {\"base_url\": \"http://127.0.0.1:9/v1\"}}}");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Cli.Run ownEndpoint = Cli.run(new Host(Map.of("OPENAI_API_KEY", "sk-unused"), dir, Interrupts.NONE, false),
                "worker", "--temporal", temporal.address(), "--base-url", "http://127.0.0.1:9/v1", "--model", "mock",
                "--config", config.toString(), "--agent", "lead");
        assertThat(ownEndpoint.status()).as(ownEndpoint.err()).isEqualTo(2);
        assertThat(ownEndpoint.err()).contains("agents.helper.base_url: not for a durable run");
        for (List<String> command : List.of(List.of("run", "hello"), List.of("worker"))) {
            List<String> args = new ArrayList<>(List.of(command.getFirst(), "--temporal", temporal.address(),
                    "--temporal-patience-seconds", "0"));
            args.addAll(command.subList(1, command.size()));
            Cli.Run noPatience = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), args.toArray(String[]::new));
            assertThat(noPatience.status()).as(command.getFirst()).isEqualTo(2);
            assertThat(noPatience.err()).as(command.getFirst()).contains("--temporal-patience-seconds: must be at least 1");
        }
    }

    /** The value of a JSON line's {@code "id"}. */
    private static String idOf(String line) {
        Matcher m = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(line);
        assertThat(m.find()).as("an id in %s", line).isTrue();
        return m.group(1);
    }

    @Test
    void aCallWaitingForApprovalWaitsInTheWorkflowSurvivesItsWorkersAndRunsOnceWhenApproved() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("Counting. " + call("x")).chunkSize(8))
                .turn(MockTurn.content(done("x approved")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            List<Process> first = workers(2, queue, model, calls, "--approve", "counter/count");
            Cli.Run run = clientInProcess(queue, "--output", "jsonl", "count x");
            List<String> lines = run.out().lines().toList();
            assertThat(run.status()).as("exit status; %s %s", lines, run.err()).isEqualTo(3);
            String required = lines.get(lines.size() - 2);
            assertThat(required).startsWith("{\"type\":\"approval_required\"").contains("\"server_name\":\"counter\"")
                    .contains("\"tool_name\":\"count\"").contains("\"arguments\":{\"text\":\"x\"}");
            assertThat(lines.getLast()).startsWith("{\"type\":\"loop_end\",\"reason\":\"interrupted\"");
            String callId = idOf(required);
            String id = workflowId(run.err());
            // The workflow waits, holding no activity; nothing ran.
            DescribeWorkflowExecutionResponse waiting = describe(id);
            assertThat(waiting.getWorkflowExecutionInfo().getStatus())
                    .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
            assertThat(waiting.getPendingActivitiesList()).isEmpty();
            assertThat(callsMade(calls)).isEmpty();

            // Every worker dies during the wait (SIGKILL); a new one takes the decision.
            for (Process worker : first) {
                kill(worker);
            }
            workers(1, queue, model, calls, "--approve", "counter/count");
            Cli.Run decide = clientInProcess(queue, "--output", "jsonl", "--follow", id, "--approve-call", callId);
            List<String> after = decide.out().lines().toList();
            assertThat(decide.status()).as("exit status; %s %s", after, decide.err()).isZero();
            assertThat(after.getFirst()).isEqualTo("{\"type\":\"loop_start\",\"task\":\"count x\"}");
            assertThat(after.get(1)).isEqualTo("{\"type\":\"approval\",\"id\":\"" + callId
                    + "\",\"decision\":\"approved\",\"reason\":\"\"}");
            assertThat(after).anyMatch(l -> l.startsWith("{\"type\":\"tool_result\"") && l.contains("counted x"));
            assertThat(after.getLast()).isEqualTo(
                    "{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"x approved\"}");
            assertThat(callsMade(calls)).containsExactly("x");
            assertThat(model.turnsTaken()).isEqualTo(2);

            // The decision stands: a second one is refused, and nothing runs again.
            Cli.Run again = clientInProcess(queue, "--follow", id, "--approve-call", callId);
            assertThat(again.status()).isEqualTo(2);
            assertThat(again.err()).contains("waits for no approval");
            assertThat(callsMade(calls)).containsExactly("x");
            // A late follower sees both parts of the run.
            Cli.Run late = clientInProcess(queue, "--output", "jsonl", "--follow", id);
            List<String> all = late.out().lines().toList();
            assertThat(late.status()).as(late.err()).isZero();
            assertThat(all).containsSequence(lines.getLast(), after.getFirst());
            assertThat(all.getLast()).isEqualTo(after.getLast());
            noSecretAnywhere(id);
        }
    }

    /**
     * A configured agent's sub-agent is part of the durable run: the only worker killed in the
     * middle of the sub-agent's answer, a new one makes the call again; the sub-agent's call that
     * needs approval makes the run wait; the decision, given after the death, runs the call once.
     * The follower's jsonl marks the sub-agent's events with its name and the lead's call. (That
     * a wait outlives every worker: the approval test above.)
     */
    @Test
    void aSubAgentSurvivesAWorkerKilledMidAnswerAndItsApprovalGivenAfterTheDeathRunsOnce() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        Path config = dir.resolve("bellows.json");
        Files.writeString(config, "{\"agents\": {\"lead\": {\"instructions\": \"You delegate.\", \"agents\": [\"counter\"]},"
                + " \"counter\": {\"instructions\": \"You count.\"}}}");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("Delegating. <tool>{\"tool_name\": \"counter\", \"arguments\": {\"task\": \"count y\"}}</tool>"))
                .turn(MockTurn.content("<thinking>" + "weighing it ".repeat(20) + "</thinking>" + call("y")).chunkSize(6))
                .turn(MockTurn.content("Again. " + call("y")).chunkSize(6))    // made again on the other worker
                .turn(MockTurn.content(done("counted y")))
                .turn(MockTurn.content(done("the counter counted y")))
                .build();
        dev.bellows.testkit.StreamHold midAnswer = dev.bellows.testkit.StreamHold.after(1, 8);
        try (MockLlmServer model = MockLlmServer.builder(script).hold(midAnswer).start()) {
            String[] agent = {"--config", config.toString(), "--agent", "lead", "--approve", "counter/count"};
            workers(1, queue, model, calls, agent);
            Process run = client(queue, "--output", "jsonl", "--agent", "lead", "count with the counter");
            midAnswer.reached().get(60, TimeUnit.SECONDS);
            String id = workflowId(run);
            kill(makingTheModelCall(id));                           // in the middle of the sub-agent's answer
            midAnswer.release();
            workers(1, queue, model, calls, agent);                 // takes the call over once its heartbeat times out
            List<String> lines = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertThat(run.waitFor()).as("exit status; %s", lines).isEqualTo(3);
            // One approval_required per waiting call (cli.md): the id to decide, marked with the sub-agent that waits.
            List<String> requireds = lines.stream().filter(l -> l.contains("\"type\":\"approval_required\"")).toList();
            assertThat(requireds).as("%s", lines).hasSize(1);
            String required = requireds.getFirst();
            String callId = idOf(required);
            String parentCall = callId.substring(0, callId.indexOf('/'));
            assertThat(required).contains("\"tool_name\":\"count\"").contains("\"arguments\":{\"text\":\"y\"}");
            assertThat(lines.getLast()).contains("\"type\":\"loop_end\"").contains("\"reason\":\"interrupted\"");
            // The sub-agent's events, its retry after the death among them, name it and the lead's call.
            List<String> nested = lines.stream().filter(l -> l.contains("\"agent\":\"counter\"")).toList();
            assertThat(nested).isNotEmpty().allMatch(l -> l.contains("\"parent_call_id\":\"" + parentCall + "\""));
            assertThat(nested).anyMatch(l -> l.startsWith("{\"type\":\"loop_start\"") && l.contains("count y"));
            assertThat(nested).anyMatch(l -> l.startsWith("{\"type\":\"retry\"") && l.contains("stopped"));
            assertThat(callsMade(calls)).isEmpty();

            // The decision, after the death: the call runs once.
            Cli.Run decide = clientInProcess(queue, "--output", "jsonl", "--follow", id, "--approve-call", callId);
            List<String> after = decide.out().lines().toList();
            assertThat(decide.status()).as("exit status; %s %s", after, decide.err()).isZero();
            assertThat(after).anyMatch(l -> l.startsWith("{\"type\":\"tool_result\"") && l.contains("counted y")
                    && l.contains("\"agent\":\"counter\""));
            assertThat(after.getLast()).startsWith("{\"type\":\"loop_end\",\"reason\":\"task_completion\"")
                    .contains("the counter counted y");
            assertThat(callsMade(calls)).containsExactly("y");
            assertThat(model.turnsTaken()).isEqualTo(5);
        }
    }

    @Test
    void aDeniedCallNeverRunsTheModelReadsTheReasonAndBadDecisionsChangeNothing() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("Counting. " + call("y")).chunkSize(8))
                .turn(MockTurn.content(done("not counted")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(1, queue, model, calls, "--approve", "counter/*");
            Cli.Run run = clientInProcess(queue, "count y");  // text mode: the waiting call and the command on stderr
            assertThat(run.status()).as(run.err()).isEqualTo(3);
            String id = workflowId(run.err());
            String err = run.err();
            Matcher carryOn = Pattern.compile("to carry it on: (bellows run --temporal \\S+ --task-queue \\S+ --follow "
                    + Pattern.quote(id) + ") --approve-call (\\S+)").matcher(err);
            assertThat(carryOn.find()).as(err).isTrue();
            assertThat(err).contains("counter/count").contains("{\"text\":\"y\"}");
            String callId = carryOn.group(2);

            Cli.Run unknown = clientInProcess(queue, "--follow", id, "--approve-call", "nope");
            assertThat(unknown.status()).isEqualTo(2);
            assertThat(unknown.err()).contains("no call waits with id nope").contains(callId);
            Cli.Run missing = clientInProcess(queue, "--follow", id, "--deny-reason", "why");
            assertThat(missing.status()).isEqualTo(2);
            assertThat(missing.err()).contains("--deny-reason: only with --deny-call");

            Cli.Run deny = clientInProcess(queue, "--output", "jsonl", "--follow", id, "--deny-call", callId,
                    "--deny-reason", "use the staging counter");
            List<String> after = deny.out().lines().toList();
            assertThat(deny.status()).as("exit status; %s %s", after, deny.err()).isZero();
            assertThat(after.get(1)).isEqualTo("{\"type\":\"approval\",\"id\":\"" + callId
                    + "\",\"decision\":\"denied\",\"reason\":\"use the staging counter\"}");
            assertThat(after.getLast()).contains("\"result\":\"not counted\"");
            assertThat(callsMade(calls)).isEmpty();
            assertThat(model.requests().getLast().body().toString()).contains("use the staging counter");
        }
        Cli.Run noId = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--temporal",
                temporal.address(), "--approve-call", "call_1_1");
        assertThat(noId.status()).isEqualTo(2);
        assertThat(noId.err()).contains("--approve-call: with --temporal, needs --follow ID");
        Cli.Run onClient = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "run", "--temporal",
                temporal.address(), "--approve", "*", "hello");
        assertThat(onClient.status()).isEqualTo(2);
        assertThat(onClient.err()).contains("--approve: set it on the workers");
    }

    @Test
    void runsOfOneSessionContinueItsConversationAndAWaitingRunHoldsTheSession() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content(done("noted")))
                .turn(MockTurn.content("Counting. " + call("z")))      // waits for approval
                .turn(MockTurn.content(done("it was 7")))
                .turn(MockTurn.content(done("fresh")))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(1, queue, model, calls, "--approve", "counter/count");
            Cli.Run first = clientInProcess(queue, "--output", "jsonl", "--session", "s1", "remember the number 7");
            assertThat(first.status()).as(first.err()).isZero();
            assertThat(workflowId(first.err())).isEqualTo("bellows-session-s1-1");

            Cli.Run second = clientInProcess(queue, "--output", "jsonl", "--session", "s1", "count z, then say the number");
            List<String> lines = second.out().lines().toList();
            assertThat(second.status()).as("%s %s", lines, second.err()).isEqualTo(3);
            String id = workflowId(second.err());
            assertThat(id).isEqualTo("bellows-session-s1-2");
            // The second run's request carries the first run's conversation.
            String asked = model.requests().get(1).body().toString();
            assertThat(asked).contains("remember the number 7").contains("noted").contains("count z, then say the number");

            // The session's run waits: a new task in it is refused, naming the run; nothing is sent.
            Cli.Run refused = clientInProcess(queue, "--session", "s1", "another task");
            assertThat(refused.status()).isEqualTo(2);
            assertThat(refused.err()).contains(id).contains("has not ended");
            assertThat(model.turnsTaken()).isEqualTo(2);

            Cli.Run decide = clientInProcess(queue, "--output", "jsonl", "--follow", id, "--approve-call",
                    idOf(lines.get(lines.size() - 2)));
            assertThat(decide.status()).as(decide.err()).isZero();
            assertThat(callsMade(calls)).containsExactly("z");

            // Another session starts afresh.
            Cli.Run other = clientInProcess(queue, "--output", "jsonl", "--session", "s2", "what number?");
            assertThat(other.status()).as(other.err()).isZero();
            assertThat(workflowId(other.err())).isEqualTo("bellows-session-s2-1");
            assertThat(model.requests().getLast().body().toString()).doesNotContain("remember the number 7");
            noSecretAnywhere(id);
        }
    }

    /**
     * docs/temporal.md's way to try durable runs: bellows temporal-dev (Temporal's Java test
     * server, a process of its own), a worker and a client on it. Then the server is killed with
     * SIGKILL mid-answer: both followers say at once that they lost the frontend; one (the default
     * patience, 30 s) ends on SIGTERM within its grace period, the other gives up after the
     * patience it was given ({@code --temporal-patience-seconds}) with exit status 1 (they used to
     * print nothing and wait for minutes, and SIGTERM took 61 s).
     */
    @Test
    void temporalDevServesRunsAndAFollowerSaysWhenItDiesThenGivesUpOrEndsOnSigterm() throws Exception {
        List<String> command = new ArrayList<>(java());
        command.addAll(List.of(BellowsCommand.class.getName(), "temporal-dev", "--port", "0"));
        Process server = new ProcessBuilder(command).redirectError(dir.resolve("temporal-dev.err").toFile()).start();
        processes.add(server);
        String listening = lines(server).readLine();
        assertThat(listening).startsWith("listening on 127.0.0.1:");
        frontend = listening.substring("listening on ".length());
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content(done("it works")))
                .turn(MockTurn.content("<thinking>" + "a long thought ".repeat(2000) + "</thinking>" + done("never"))
                        .chunkSize(6).delayMs(25))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(1, queue, model, calls);
            Cli.Run first = clientInProcess(queue, "say it works");
            assertThat(first.status()).as(first.err()).isZero();
            assertThat(first.out()).contains("it works");

            Process waiting = client(queue, "--output", "jsonl", "--temporal-patience-seconds", PATIENCE, "think long");
            BufferedReader out = lines(waiting);
            List<String> lines = new ArrayList<>();
            assertThat(readUntil(out, lines, l -> l.contains("\"thinking_content\""))).isNotNull();
            String id = workflowId(waiting);
            Process terminated = client(queue, "--output", "jsonl", "--follow", id);
            assertThat(readUntil(lines(terminated), new ArrayList<>(), l -> l.contains("\"thinking_content\""))).isNotNull();
            kill(server);                                   // the frontend dies mid-answer
            String lost = "lost the Temporal frontend at " + frontend;
            assertThat(saidWhileRunning(waiting, lost)).isTrue();
            assertThat(saidWhileRunning(terminated, lost)).isTrue();
            assertThat(errorOf(waiting)).contains("trying again for up to " + PATIENCE + " s");
            assertThat(errorOf(terminated)).contains("trying again for up to "
                    + DurableAgent.FRONTEND_PATIENCE.toSeconds() + " s");

            assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(terminated.pid())).start().waitFor()).isZero();
            assertThat(terminated.waitFor(20, TimeUnit.SECONDS)).as("SIGTERM ends it within its grace period").isTrue();
            assertThat(terminated.exitValue()).isEqualTo(143);

            String end = readUntil(out, lines, l -> l.contains("\"loop_end\""));
            assertThat(waiting.waitFor(Integer.parseInt(PATIENCE) + 60, TimeUnit.SECONDS))
                    .as("gives up: %s", errorOf(waiting)).isTrue();
            assertThat(waiting.exitValue()).isEqualTo(1);
            assertThat(end).contains("\"reason\":\"error\"").contains(lost).contains("no answer for " + PATIENCE + " s");
        }
    }

    /** A run started with no worker on its queue says so within seconds, and goes on once one polls. */
    @Test
    void aRunWithNoWorkerSaysWhatItWaitsForAndGoesOnWhenOneComes() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        try (MockLlmServer model = MockLlmServer.start(MockScript.builder().turn(MockTurn.content(done("worked"))).build())) {
            Process run = client(queue, "wait for a worker");
            assertThat(saidWhileRunning(run, "no worker has taken the run's next step")).isTrue();
            assertThat(errorOf(run)).contains("task queue " + queue)
                    .contains("start one: bellows worker --temporal " + frontend() + " --task-queue " + queue);
            workers(1, queue, model, calls);
            String shown = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(run.waitFor()).as(errorOf(run)).isZero();
            assertThat(shown).contains("worked");
        }
    }

    /**
     * A frontend that cannot be reached (a closed port) is said within seconds; exit 1 once the
     * patience ({@code --temporal-patience-seconds}; 30 s by default) is up.
     */
    @Test
    void aFrontendThatCannotBeReachedIsSaidAtOnceThenExitStatus1() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        frontend = "127.0.0.1:" + port;
        Process run = client("q-" + UUID.randomUUID(), "--temporal-patience-seconds", PATIENCE, "hello");
        assertThat(saidWhileRunning(run, "cannot reach Temporal at " + frontend + " yet")).isTrue();
        assertThat(run.waitFor()).isEqualTo(1);
        assertThat(errorOf(run)).contains("trying for up to " + PATIENCE + " s in all")
                .contains("cannot reach Temporal at " + frontend + " (tried for " + PATIENCE + " s)");
    }

    /**
     * A model that repeats the worker's key, in pieces: the worker redacts what it records (the
     * answer, its live heartbeats, the tool call's arguments, the loop's end), so the key is in no
     * event the follower gets (the follower cannot know the worker's secrets) and in no payload
     * of the history, inflated; the run still works.
     */
    @Test
    void aKeyTheModelRepeatsIsRedactedByTheWorkerBeforeItIsRecorded() throws Exception {
        String queue = "q-" + UUID.randomUUID();
        Path calls = dir.resolve("calls.txt");
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("<thinking>the key is " + SECRET + "</thinking>It is " + SECRET + ". "
                        + call(SECRET)).chunkSize(5))
                .turn(MockTurn.content(done("the key was " + SECRET)).chunkSize(5))
                .build();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            workers(1, queue, model, calls);
            Cli.Run run = clientInProcess(queue, "--output", "jsonl", "repeat the key");
            String shown = run.out();
            assertThat(run.status()).as("%s%s", shown, run.err()).isZero();
            assertThat(shown).doesNotContain(SECRET).contains(dev.bellows.secret.Secrets.REDACTED)
                    .contains("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"the key was [REDACTED]\"}");
            assertThat(callsMade(calls)).containsExactly(dev.bellows.secret.Secrets.REDACTED);
            noSecretAnywhere(workflowId(run.err()));
        }
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
