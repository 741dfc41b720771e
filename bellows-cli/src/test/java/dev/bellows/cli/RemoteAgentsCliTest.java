package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static dev.bellows.cli.RunCommandTest.server;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aAgentTool;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.testkit.A2aJs;
import dev.bellows.testkit.Background;
import dev.bellows.testkit.MockLlmServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Remote A2A agents by name (cli.md, "A2A: agents calling agents"): an {@code "a2a"} entry of
 * {@code bellows.json} used where a local agent's name goes, against the official
 * {@code @a2a-js/sdk} test agent and the mock model, over real HTTP on 127.0.0.1.
 */
class RemoteAgentsCliTest {

    private static A2aJs.Server remote;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws IOException {
        remote = A2aJs.shared();
    }

    private String team(String url) {
        return """
                {"a2a": {"echo": {"url": "%s"}},
                 "agents": {"lead": {"instructions": "You delegate.", "agents": ["echo"]}}}""".formatted(url);
    }

    /** lead, who hands the conversation to the remote echo. */
    private static String handingOver(String url) {
        return """
                {"a2a": {"echo": {"url": "%s"}},
                 "agents": {"lead": {"instructions": "You hand over.", "handoffs": ["echo"]}}}""".formatted(url);
    }

    private Cli.Run bellows(String config, Map<String, String> env, String... args) {
        write(config);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(env, dir, Interrupts.NONE, false)).execute(args);
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private void write(String config) {
        try {
            Files.writeString(dir.resolve("bellows.json"), config);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The JSON lines written so far, the last one left out while it is still being written. */
    private static List<JsonNode> completeLines(String out) {
        String done = out.substring(0, out.lastIndexOf('\n') + 1);
        return done.isEmpty() ? List.of() : Cli.lines(done.split("\n"));
    }

    private static List<String> run(MockLlmServer server, String... args) {
        List<String> all = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock"));
        all.addAll(List.of(args));
        return all;
    }

    @Test
    void aRemoteAgentInAgentsIsCalledAsAToolItsTaskStreamingAsNestedEvents() {
        try (MockLlmServer server = server(call("echo", "{\"task\": \"hello there\"}"), complete("it said hello"))) {
            Cli.Run run = bellows(team(remote.url()), Map.of(),
                    run(server, "--agent", "lead", "--output", "jsonl", "Say hello through echo.").toArray(String[]::new));

            assertThat(run.status()).as(run.err()).isZero();
            List<JsonNode> events = run.outJson();
            List<JsonNode> nested = events.stream().filter(e -> e.get("agent").asString().equals("echo")).toList();
            assertThat(nested).isNotEmpty().allSatisfy(e -> assertThat(e.get("parent_call_id").asString())
                    .isEqualTo(nested.getFirst().get("parent_call_id").asString()).isNotBlank());
            assertThat(nested.getFirst().get("type").asString()).isEqualTo("loop_start");
            assertThat(nested.getFirst().get("task").asString()).isEqualTo("hello there");
            // the remote task's status and its artifact's chunks, as they came
            assertThat(nested.stream().filter(e -> e.get("type").asString().equals("thinking_content"))
                    .map(e -> e.get("content").asString()).collect(java.util.stream.Collectors.joining()))
                    .isEqualTo("working on it");
            // (the pieces' boundaries are the stream's: secrets' redaction across deltas may hold a tail back)
            List<String> pieces = nested.stream().filter(e -> e.get("type").asString().equals("message_content"))
                    .map(e -> e.get("content").asString()).toList();
            assertThat(String.join("", pieces)).isEqualTo("Echo: hello there!");
            assertThat(pieces).as("streamed as the artifact's chunks came, not once at the end").hasSizeGreaterThan(1);
            assertThat(nested.getLast().get("type").asString()).isEqualTo("loop_end");
            assertThat(nested.getLast().get("reason").asString()).isEqualTo("task_completion");
            JsonNode result = events.stream().filter(e -> e.get("type").asString().equals("tool_result")
                    && e.get("agent").asString().equals("lead")).findFirst().orElseThrow();
            assertThat(result.get("tool_name").asString()).isEqualTo("echo");
            assertThat(result.get("result").asString()).isEqualTo("Echo: hello there!");
            assertThat(events.indexOf(nested.getLast())).isLessThan(events.indexOf(result));
            // the lead's model read the card's words in the tool's description
            assertThat(server.requests().getFirst().body().get("messages").toString())
                    .contains("Gives a task to the remote agent echo", "js-test-agent", "Echoes the text back.");
        }
    }

    @Test
    void inTextASubAgentsRemoteWorkIsIndentedUnderItsName() {
        try (MockLlmServer server = server(call("echo", "{\"task\": \"hi\"}"), complete("done"))) {
            Cli.Run run = bellows(team(remote.url()), Map.of(),
                    run(server, "--agent", "lead", "go").toArray(String[]::new));

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("done\n");
            assertThat(run.err()).contains("\n  agent echo: hi", "\n    echo task_completion: Echo: hi!");
        }
    }

    @Test
    void aRemoteTaskThatFailsIsAFailedCallTheModelReads() {
        try (MockLlmServer server = server(call("echo", "{\"task\": \"fail now\"}"), complete("it failed"))) {
            Cli.Run run = bellows(team(remote.url()), Map.of(),
                    run(server, "--agent", "lead", "--output", "jsonl", "go").toArray(String[]::new));

            assertThat(run.status()).as(run.err()).isZero();
            JsonNode error = run.outJson().stream().filter(e -> e.get("type").asString().equals("tool_result_error")
                    && e.get("agent").asString().equals("lead")).findFirst().orElseThrow();
            assertThat(error.get("error").asString()).contains("echo ended error",
                    "the remote agent echo's task ended failed: the agent failed on purpose");
        }
    }

    @Test
    void cancellingTheLocalRunCancelsTheRemoteTask() throws Exception {
        write(team(remote.url()));
        AtomicReference<Runnable> ctrlC = new AtomicReference<>();
        Interrupts interrupts = action -> {
            ctrlC.set(action);
            return () -> ctrlC.set(null);
        };
        try (MockLlmServer server = server(call("echo", "{\"task\": \"hold on\"}"), complete("never"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CompletableFuture<Integer> status = Background.supply(() -> BellowsCommand.commandLine(
                    new ByteArrayInputStream(new byte[0]), out, err, false, new Host(Map.of(), dir, interrupts, false))
                    .execute(run(server, "--agent", "lead", "--output", "jsonl", "go").toArray(String[]::new)));
            String task = null;
            while (task == null) {
                assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isNotDone();
                Thread.sleep(20);
                task = completeLines(out.toString(StandardCharsets.UTF_8)).stream()
                        .filter(e -> e.get("type").asString().equals("thinking_start") && e.has("parent_call_id"))
                        .map(e -> e.at("/attributes/task").asString()).findFirst().orElse(null);
            }
            ctrlC.get().run();
            assertThat(status.get(60, TimeUnit.SECONDS)).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(130);
            // the remote agent was asked to cancel (its hold ends only on CancelTask) before the run ended
            try (A2aClient client = A2aClient.builder(remote.url()).connect()) {
                Task cancelled = client.getTask(task);
                assertThat(cancelled.status().state()).isEqualTo(TaskState.CANCELED);
                assertThat(A2aAgentTool.text(cancelled.status().message().parts())).isEqualTo("cancelled by the client");
            }
        }
    }

    @Test
    void runAgentNameRunsTheRemoteAgentDirectlyWithoutAModel() {
        write(team(remote.url()));
        Cli.Run run = bellows(team(remote.url()), Map.of(), "run", "--agent", "echo", "hello there");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("Echo: hello there!\n");

        Cli.Run jsonl = bellows(team(remote.url()), Map.of(), "run", "--agent", "echo", "--output", "jsonl", "hi");
        assertThat(jsonl.status()).as(jsonl.err()).isZero();
        List<JsonNode> events = jsonl.outJson();
        assertThat(events).allSatisfy(e -> assertThat(e.get("agent").asString()).isEqualTo("echo"));
        assertThat(events.getLast().get("result").asString()).isEqualTo("Echo: hi!");

        Cli.Run failed = bellows(team(remote.url()), Map.of(), "run", "--agent", "echo", "fail please");
        assertThat(failed.status()).isEqualTo(1);
        assertThat(failed.err()).contains("error: the remote agent echo's task ended failed: the agent failed on purpose");
    }

    @Test
    void chatWithARemoteAgentIsOneConversationWhoseNextLineAnswersItsQuestion() {
        write(team(remote.url()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(
                        "hello there\nask me about the weather\nOslo\nfail now\n".getBytes(StandardCharsets.UTF_8)),
                out, err, false, new Host(Map.of(), dir, Interrupts.NONE, false))
                .execute("chat", "--agent", "echo", "--data-dir", dir.resolve("data").toString());
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(said).isEqualTo(1);      // a script whose turn failed
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("Echo: hello there!\nWhich city?\nWeather in Oslo: sunny\n");
        assertThat(said).contains("> Oslo\n", "error: the remote agent echo's task ended failed: the agent failed on purpose");
    }

    @Test
    void aRemoteQuestionEndsRunWithStatusThreeAndTheCommandThatAnswersIt() {
        Cli.Run asked = bellows(team(remote.url()), Map.of(), "run", "--agent", "echo", "ask me about the weather");
        assertThat(asked.status()).as(asked.err()).isEqualTo(3);
        assertThat(asked.out()).isEqualTo("Which city?\n");
        java.util.regex.Matcher hint = java.util.regex.Pattern.compile(
                "answer with: bellows a2a send echo ANSWER --task-id (\\S+) --context-id (\\S+)").matcher(asked.err());
        assertThat(hint.find()).as(asked.err()).isTrue();
        Cli.Run answered = bellows(team(remote.url()), Map.of(), "a2a", "send", "echo", "Oslo", "--task-id", hint.group(1),
                "--context-id", hint.group(2));
        assertThat(answered.status()).as(answered.err()).isZero();
        assertThat(answered.out()).isEqualTo("Weather in Oslo: sunny\n");
    }

    /** The remote task whose first message is {@code task} (tasks' texts are unique to each test). */
    private static Task remoteTask(String task) {
        try (A2aClient client = A2aClient.builder(remote.url()).connect()) {
            return client.listTasks(new dev.bellows.a2a.ListTasksRequest(null, null, null, 100, null, 50, null, false))
                    .tasks().stream().filter(t -> t.history() != null && !t.history().isEmpty()
                            && A2aAgentTool.text(t.history().getFirst().parts()).equals(task))
                    .findFirst().orElseThrow(() -> new AssertionError("no remote task began with " + task));
        }
    }

    /** How many of the task's messages say {@code text}. */
    private static long said(Task task, String text) {
        return task.history().stream().filter(m -> A2aAgentTool.text(m.parts()).equals(text)).count();
    }

    @Test
    void aSubAgentsRemoteQuestionStopsTheRunAndThePrintedCommandAnswersItInTheSameTaskInANewProcess()
            throws Exception {
        String task = "ask me about the weather (a sub-agent's question, answered later)";
        try (MockLlmServer server = server(call("echo", "{\"task\": \"" + task + "\"}"), complete("sunny in Oslo"))) {
            Cli.Run asked = bellows(team(remote.url()), Map.of(), run(server, "--agent", "lead", "--session", "s1",
                    "--data-dir", "data", "What is the weather?").toArray(String[]::new));
            assertThat(asked.status()).as(asked.err()).isEqualTo(3);
            assertThat(asked.out()).isEqualTo("Which city?\n");
            assertThat(asked.err()).contains("bellows run: interrupted: a tool call waits for an answer:",
                    "  call_1_1/input  a2a/echo  asks: Which city?");
            assertThat(remoteTask(task).status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
            String line = asked.err().lines().filter(l -> l.startsWith("to carry it on: ")).findFirst().orElseThrow();
            String command = line.substring("to carry it on: ".length(), line.indexOf("   ("));
            assertThat(command).startsWith("bellows run --session s1 --data-dir ")
                    .endsWith(" --answer-call call_1_1/input=ANSWER").doesNotContain("'");

            // the command as printed, ANSWER given, in a bellows process of its own
            List<String> words = new ArrayList<>(ChildJvm.bellows().java());
            words.add(BellowsCommand.class.getName());
            words.addAll(List.of(command.substring("bellows ".length()).replace("=ANSWER", "=Oslo").split(" ")));
            Process child = new ProcessBuilder(words).directory(dir.toFile())
                    .redirectError(dir.resolve("resume.err").toFile()).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as(Files.readString(dir.resolve("resume.err"))).isZero();
            assertThat(out).isEqualTo("sunny in Oslo\n");
            // the remote task took the answer, once, and its answer is the result lead's model read
            Task answered = remoteTask(task);
            assertThat(answered.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(answered, "Oslo")).isEqualTo(1);
            assertThat(server.requests()).hasSize(2);
            assertThat(server.requests().getLast().body().get("messages").toString()).contains("Weather in Oslo: sunny");
        }
    }

    @Test
    void aHandoffToARemoteAgentThatAsksEndsWithStatusThreeAndTheSessionsNextRunAnswersTheSameTaskOnce() {
        String task = "ask me about the weather (a handoff's question)";
        String config = handingOver(remote.url());
        try (MockLlmServer server = server(call("transfer_to_echo", "{}"), complete("back with lead"))) {
            Cli.Run asked = bellows(config, Map.of(), run(server, "--agent", "lead", "--session", "h1", "--data-dir",
                    "data", task).toArray(String[]::new));
            assertThat(asked.status()).as(asked.err()).isEqualTo(3);
            assertThat(asked.out()).isEqualTo("Which city?\n");
            assertThat(asked.err()).contains("lead hands the conversation to echo", "  input  a2a/echo  asks: Which city?",
                    "answer with: bellows run --session h1 --data-dir ").doesNotContain("--answer-call");
            Task waiting = remoteTask(task);
            assertThat(waiting.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);

            // the session's next run, in a new command with a new remote agent: the answer, not lead's model
            Cli.Run answered = bellows(config, Map.of(), run(server, "--agent", "lead", "--session", "h1",
                    "--data-dir", "data", "Oslo").toArray(String[]::new));
            assertThat(answered.status()).as(answered.err()).isZero();
            assertThat(answered.out()).isEqualTo("Weather in Oslo: sunny\n");
            Task done = remoteTask(task);
            assertThat(done.id()).isEqualTo(waiting.id());
            assertThat(done.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(done, "Oslo")).isEqualTo(1);
            assertThat(server.requests()).hasSize(1);

            // its task done, the conversation is lead's again
            Cli.Run after = bellows(config, Map.of(), run(server, "--agent", "lead", "--session", "h1",
                    "--data-dir", "data", "thanks").toArray(String[]::new));
            assertThat(after.status()).as(after.err()).isZero();
            assertThat(after.out()).isEqualTo("back with lead\n");
            assertThat(server.requests()).hasSize(2);
            assertThat(said(remoteTask(task), "Oslo")).isEqualTo(1);
        }
    }

    @Test
    void aSubAgentsRemoteQuestionDeniedCancelsTheRemoteTaskAndLeadsModelReadsWhy() {
        String task = "ask me about the weather (a question denied)";
        try (MockLlmServer server = server(call("echo", "{\"task\": \"" + task + "\"}"), complete("no weather then"))) {
            Cli.Run asked = bellows(team(remote.url()), Map.of(), run(server, "--agent", "lead", "--session", "s2",
                    "--data-dir", "data", "--output", "jsonl", "What is the weather?").toArray(String[]::new));
            assertThat(asked.status()).as(asked.err()).isEqualTo(3);
            Cli.Run denied = bellows(team(remote.url()), Map.of(), run(server, "--session", "s2", "--data-dir", "data",
                    "--deny-call", "call_1_1/input", "--deny-reason", "not today").toArray(String[]::new));
            assertThat(denied.status()).as(denied.err()).isZero();
            assertThat(denied.out()).isEqualTo("no weather then\n");
            Task cancelled = remoteTask(task);
            assertThat(cancelled.status().state()).isEqualTo(TaskState.CANCELED);
            assertThat(said(cancelled, "not today")).isZero();
            assertThat(server.requests().getLast().body().get("messages").toString())
                    .contains("was declined: not today");
        }
    }

    /** {@code bellows chat --agent lead} with the config written, {@code input} its standard input. */
    private Cli.Run chatAsLead(MockLlmServer server, String input) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                out, err, false, new Host(Map.of(), dir, Interrupts.NONE, false))
                .execute("chat", "--base-url", server.baseUrl().toString(), "--model", "mock", "--agent", "lead",
                        "--data-dir", dir.resolve("data").toString());
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void inAChatASubAgentsRemoteQuestionIsShownAndTheNextLineAnswersIt() {
        String task = "ask me about the weather (in a chat)";
        write(team(remote.url()));
        try (MockLlmServer server = server(call("echo", "{\"task\": \"" + task + "\"}"), complete("sunny in Bergen"))) {
            Cli.Run chat = chatAsLead(server, "What is the weather?\nBergen\n");
            String said = chat.err();
            assertThat(chat.status()).as(said).isZero();
            assertThat(chat.out()).isEqualTo("Which city?\nsunny in Bergen\n");
            assertThat(said).contains("> Bergen\n");
            Task answered = remoteTask(task);
            assertThat(answered.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(answered, "Bergen")).isEqualTo(1);
            assertThat(server.requests().getLast().body().get("messages").toString()).contains("Weather in Bergen: sunny");
        }
    }

    @Test
    void inAChatAHandedRemoteAgentsQuestionIsShownAndTheNextLineAnswersIt() {
        String task = "ask me about the weather (handed over in a chat)";
        write(handingOver(remote.url()));
        try (MockLlmServer server = server(call("transfer_to_echo", "{}"))) {
            Cli.Run chat = chatAsLead(server, task + "\nBergen\n");
            assertThat(chat.status()).as(chat.err()).isZero();
            assertThat(chat.out()).isEqualTo("Which city?\nWeather in Bergen: sunny\n");
            Task answered = remoteTask(task);
            assertThat(answered.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(answered, "Bergen")).isEqualTo(1);
            assertThat(server.requests()).hasSize(1);
        }
    }

    @Test
    void answerCallIsCheckedBeforeAnythingRuns() {
        String[] model = {"run", "--base-url", "http://127.0.0.1:9/v1", "--model", "mock"};
        Cli.Run malformed = bellows(team(remote.url()), Map.of(), java.util.stream.Stream.concat(
                java.util.Arrays.stream(model), Stream.of("--session", "s", "--data-dir", "data", "--answer-call",
                        "call_1_1/input")).toArray(String[]::new));
        assertThat(malformed.status()).isEqualTo(2);
        assertThat(malformed.err()).contains("--answer-call: give ID=TEXT, the call's id and its answer");

        Cli.Run noSession = bellows(team(remote.url()), Map.of(), java.util.stream.Stream.concat(
                java.util.Arrays.stream(model), Stream.of("--answer-call", "call_1_1/input=Oslo")).toArray(String[]::new));
        assertThat(noSession.status()).isEqualTo(2);
        assertThat(noSession.err()).contains("--answer-call: needs --session NAME");

        Cli.Run nothingWaits = bellows(team(remote.url()), Map.of(), java.util.stream.Stream.concat(
                java.util.Arrays.stream(model), Stream.of("--session", "idle", "--data-dir", "data", "--answer-call",
                        "call_1_1/input=Oslo")).toArray(String[]::new));
        assertThat(nothingWaits.status()).isEqualTo(2);
        assertThat(nothingWaits.err()).contains("session idle has no run waiting for a decision: there is nothing to"
                + " approve, deny or answer");
    }

    /** One AG-UI run of {@code bellows serve}: its events. */
    private static List<JsonNode> agui(String url, String input) throws Exception {
        java.net.http.HttpResponse<String> response = post(url, input);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        for (String line : response.body().split("\n")) {
            if (line.startsWith("data: ")) {
                events.add(Cli.json(line.substring("data: ".length())));
            }
        }
        return events;
    }

    private static JsonNode first(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asString().equals(type)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " in " + events));
    }

    @Test
    void overAguiASubAgentsRemoteQuestionEndsTheRunWithAnInterruptThatTheNextRunAnswersOrCancels() throws Exception {
        String asked = "ask me about the weather (over AG-UI)";
        String cancelled = "ask me about the weather (over AG-UI, cancelled)";
        write(team(remote.url()));
        try (MockLlmServer model = server(call("echo", "{\"task\": \"" + asked + "\"}"), complete("sunny in Trondheim"),
                call("echo", "{\"task\": \"" + cancelled + "\"}"), complete("no weather then"));
             ServeInProcess served = ServeInProcess.start(dir, Map.of(), "serve", "--port", "0", "--base-url",
                     model.baseUrl().toString(), "--model", "mock", "--agent", "lead", "--data-dir",
                     dir.resolve("data").toString())) {
            String message = "{\"id\": \"m1\", \"role\": \"user\", \"content\": \"What is the weather?\"}";
            List<JsonNode> stopped = agui(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r1\", \"messages\": ["
                    + message + "]}");
            JsonNode end = stopped.getLast();
            assertThat(end.get("type").asString()).as(end.toString()).isEqualTo("RUN_FINISHED");
            assertThat(end.at("/outcome/type").asString()).isEqualTo("interrupt");
            JsonNode interrupt = end.at("/outcome/interrupts/0");
            String id = interrupt.get("id").asString();
            assertThat(id).endsWith("/input");
            assertThat(interrupt.get("reason").asString()).isEqualTo("tool_result");
            assertThat(interrupt.at("/metadata/arguments/question").asString()).isEqualTo("Which city?");
            JsonNode suspended = first(stopped, "SUBAGENT_FINISHED");
            assertThat(suspended.at("/outcome/type").asString()).isEqualTo("suspended");
            assertThat(suspended.at("/outcome/interruptIds/0").asString()).as(stopped.toString()).isEqualTo(id);
            assertThat(stopped).noneMatch(e -> e.get("type").asString().equals("SUBAGENT_ERROR"));
            assertThat(remoteTask(asked).status().state()).isEqualTo(TaskState.INPUT_REQUIRED);

            List<JsonNode> answered = agui(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r2\", \"messages\": ["
                    + message + "], \"resume\": [{\"interruptId\": \"" + id + "\", \"status\": \"resolved\","
                    + " \"payload\": {\"result\": \"Trondheim\"}}]}");
            assertThat(answered.getLast().get("type").asString()).as(answered.toString()).isEqualTo("RUN_FINISHED");
            assertThat(answered.getLast().get("result").asString()).isEqualTo("sunny in Trondheim");
            Task task = remoteTask(asked);
            assertThat(task.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(task, "Trondheim")).isEqualTo(1);
            assertThat(model.requests().get(1).body().get("messages").toString()).contains("Weather in Trondheim: sunny");

            // a client that cancels the interrupt gives the question up: the remote task is cancelled
            String again = "{\"id\": \"m2\", \"role\": \"user\", \"content\": \"And now?\"}";
            String other = agui(served.url(), "{\"threadId\": \"t2\", \"runId\": \"r3\", \"messages\": [" + again
                    + "]}").getLast().at("/outcome/interrupts/0/id").asString();
            List<JsonNode> given = agui(served.url(), "{\"threadId\": \"t2\", \"runId\": \"r4\", \"messages\": ["
                    + again + "], \"resume\": [{\"interruptId\": \"" + other + "\", \"status\": \"cancelled\"}]}");
            assertThat(given.getLast().get("result").asString()).as(given.toString()).isEqualTo("no weather then");
            assertThat(remoteTask(cancelled).status().state()).isEqualTo(TaskState.CANCELED);
        }
    }

    @Test
    void servedDirectlyARemoteAgentsQuestionIsAnInterruptTheNextRunAnswersInTheSameTaskOnce() throws Exception {
        String asked = "ask me about the weather (the served remote agent)";
        String next = "and thank you (the served remote agent)";
        write(team(remote.url()));
        try (ServeInProcess served = ServeInProcess.start(dir, Map.of(), "serve", "--port", "0", "--agent", "echo",
                "--data-dir", dir.resolve("data").toString())) {
            String message = "{\"id\": \"m1\", \"role\": \"user\", \"content\": \"" + asked + "\"}";
            List<JsonNode> stopped = agui(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r1\", \"messages\": ["
                    + message + "]}");
            JsonNode end = stopped.getLast();
            assertThat(end.get("type").asString()).as(stopped.toString()).isEqualTo("RUN_FINISHED");
            assertThat(end.at("/outcome/type").asString()).as(end.toString()).isEqualTo("interrupt");
            JsonNode interrupt = end.at("/outcome/interrupts/0");
            assertThat(interrupt.get("id").asString()).isEqualTo("input");
            assertThat(interrupt.get("reason").asString()).isEqualTo("tool_result");
            assertThat(interrupt.get("message").asString()).isEqualTo("echo asks: Which city?");
            Task waiting = remoteTask(asked);
            assertThat(waiting.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);

            // an interrupt the thread does not wait on is refused, and nothing is sent
            java.net.http.HttpResponse<String> wrong = post(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r2\","
                    + " \"messages\": [" + message + "], \"resume\": [{\"interruptId\": \"other\", \"status\":"
                    + " \"resolved\", \"payload\": {\"result\": \"Oslo\"}}]}");
            assertThat(wrong.statusCode()).as(wrong.body()).isEqualTo(400);
            assertThat(wrong.body()).contains("resume[0].interruptId", "waiting: input");

            List<JsonNode> answered = agui(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r3\", \"messages\": ["
                    + message + "], \"resume\": [{\"interruptId\": \"input\", \"status\": \"resolved\","
                    + " \"payload\": {\"result\": \"Bergen\"}}]}");
            assertThat(answered.getLast().get("type").asString()).as(answered.toString()).isEqualTo("RUN_FINISHED");
            assertThat(answered.getLast().at("/outcome/type").asString()).isNotEqualTo("interrupt");
            assertThat(answered.getLast().get("result").asString()).isEqualTo("Weather in Bergen: sunny");
            Task task = remoteTask(asked);
            assertThat(task.id()).isEqualTo(waiting.id());
            assertThat(task.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(said(task, "Bergen")).isEqualTo(1);

            // the answered interrupt waits no more: sent again, it is refused, and the task took it once
            java.net.http.HttpResponse<String> twice = post(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r4\","
                    + " \"messages\": [" + message + "], \"resume\": [{\"interruptId\": \"input\", \"status\":"
                    + " \"resolved\", \"payload\": {\"result\": \"Bergen\"}}]}");
            assertThat(twice.statusCode()).as(twice.body()).isEqualTo(400);
            assertThat(said(remoteTask(asked), "Bergen")).isEqualTo(1);

            // the thread's next message is a new task in the same remote conversation
            List<JsonNode> thanked = agui(served.url(), "{\"threadId\": \"t1\", \"runId\": \"r5\", \"messages\": ["
                    + message + ", {\"id\": \"m2\", \"role\": \"user\", \"content\": \"" + next + "\"}]}");
            assertThat(thanked.getLast().get("result").asString()).as(thanked.toString()).isEqualTo("Echo: " + next + "!");
            Task thanks = remoteTask(next);
            assertThat(thanks.id()).isNotEqualTo(waiting.id());
            assertThat(thanks.contextId()).isEqualTo(waiting.contextId());
        }
    }

    @Test
    void servingARemoteAgentRefusesWhatOnlyAModelAgentHas() {
        Cli.Run refused = bellows(team(remote.url()), Map.of(), "serve", "--port", "0", "--agent", "echo", "--a2a");
        assertThat(refused.status()).isEqualTo(2);
        assertThat(refused.err()).contains("--agent echo: a remote A2A agent is served over AG-UI and chat completions"
                + " only; leave --a2a out");
    }

    private static java.net.http.HttpResponse<String> post(String url, String input) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/agui"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(input)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aHeaderFromTheEnvironmentIsSentAndNeverWrittenAnywhere() throws Exception {
        String secret = "tok-5ecret-77aa";
        try (A2aJs.Server guarded = A2aJs.startServer(Map.of("A2A_TOKEN", secret));
             MockLlmServer server = server(call("echo", "{\"task\": \"hello there\"}"), complete("it said hello"))) {
            String config = """
                    {"a2a": {"echo": {"url": "%s", "headers": {"Authorization": "Bearer ${ECHO_TOKEN}"}}},
                     "agents": {"lead": {"instructions": "You delegate.", "agents": ["echo"]}}}""".formatted(guarded.url());
            // every record the library logs, at every level, while it runs
            List<String> logged = java.util.Collections.synchronizedList(new ArrayList<>());
            java.util.logging.Logger library = java.util.logging.Logger.getLogger("dev.bellows");
            java.util.logging.Level level = library.getLevel();
            java.util.logging.Handler handler = new java.util.logging.Handler() {
                @Override
                public void publish(java.util.logging.LogRecord record) {
                    logged.add(record.getMessage() + " " + record.getThrown());
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            handler.setLevel(java.util.logging.Level.ALL);
            library.setLevel(java.util.logging.Level.ALL);
            library.addHandler(handler);
            Cli.Run run;
            try {
                run = bellows(config, Map.of("ECHO_TOKEN", secret), run(server, "--agent", "lead", "--output",
                        "jsonl", "--session", "s1", "--data-dir", "data", "go").toArray(String[]::new));
            } finally {
                library.removeHandler(handler);
                library.setLevel(level);
            }
            assertThat(String.join("\n", logged)).doesNotContain(secret);
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.outJson().stream().filter(e -> e.get("type").asString().equals("tool_result"))
                    .map(e -> e.get("result").asString())).contains("Echo: hello there!");
            assertThat(run.out() + run.err()).doesNotContain(secret);
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).as(file.toString())
                            .doesNotContain(secret);
                }
            }
            Cli.Run wrong = bellows(config, Map.of("ECHO_TOKEN", "wrong-4455"),
                    "run", "--agent", "echo", "hello");
            assertThat(wrong.status()).isEqualTo(1);
            assertThat(wrong.err()).contains("HTTP 401").doesNotContain("wrong-4455");
            Cli.Run unset = bellows(config, Map.of(), run(server, "--agent", "lead", "go").toArray(String[]::new));
            assertThat(unset.status()).isEqualTo(2);
            assertThat(unset.err()).contains("a2a.echo.headers.Authorization: the environment variable ECHO_TOKEN is not set");
        }
    }

    @Test
    void bellowsAgentsListsTheRemoteOnesWithTheirUrlAndHeaderNames() {
        Cli.Run list = bellows("""
                {"a2a": {"echo": {"url": "http://127.0.0.1:9/", "headers": {"Authorization": "Bearer ${TOKEN_X}"}}},
                 "agents": {"lead": {"instructions": "I lead.", "agents": ["echo"]}}}""", Map.of("TOKEN_X", "tok-zz-1"),
                "agents");
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).isEqualTo("lead  default  calls: echo  tools: the command line's\n"
                + "echo  remote  url: http://127.0.0.1:9/  headers: Authorization\n");
        assertThat(list.out()).doesNotContain("tok-zz-1").doesNotContain("TOKEN_X");
    }

    @Test
    void namesAreCheckedAcrossLocalAndRemoteAgents() {
        Cli.Run both = bellows("""
                {"a2a": {"echo": {"url": "http://127.0.0.1:9/"}},
                 "agents": {"echo": {"instructions": "I am local."}}}""", Map.of(), "agents");
        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).contains("bellows.json: agents.echo: \"echo\" names a remote agent of \"a2a\" too");

        Cli.Run unknown = bellows("""
                {"a2a": {"echo": {"url": "http://127.0.0.1:9/"}},
                 "agents": {"lead": {"instructions": "I lead.", "handoffs": ["ecko"]}}}""", Map.of(), "agents");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("agents.lead.handoffs: no agent \"ecko\" (the agents: lead, echo)");

        Cli.Run flag = bellows("""
                {"a2a": {"echo": {"url": "http://127.0.0.1:9/"}}}""", Map.of(), "run", "--base-url",
                "http://127.0.0.1:9/v1", "--model", "mock", "--agent", "ecko", "hi");
        assertThat(flag.status()).isEqualTo(2);
        assertThat(flag.err()).contains("--agent: unknown agent", "echo");
    }
}
