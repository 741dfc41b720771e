package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.A2aJs;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official @a2a-js/sdk client against {@code bellows serve --a2a} (in process, a mock model):
 * a task streamed to its answer, read back and listed, and a call that waits for approval as an
 * {@code input-required} task answered with {@code approve}, over both bindings; and Bellows' own
 * {@code bellows a2a send} against it.
 */
class A2aServeInteropTest {

    @TempDir
    Path dir;

    private static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    /** A call of the recording MCP server's write_file, which --approve files/write_file makes wait. */
    private static final String WRITE = "<tool>{\"server_name\": \"files\", \"tool_name\": \"write_file\","
            + " \"arguments\": {\"path\": \"a.txt\"}}</tool>";

    /** The MCP config with the recording server as "files"; the arguments that serve it with approvals. */
    private String[] approvals() throws Exception {
        Path config = dir.resolve("mcp.json");
        java.nio.file.Files.writeString(config, "{\"mcpServers\": {\"files\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.writeValueAsString(ApprovalsCliTest.script()) + "], \"env\": {\"CALL_LOG\": "
                + Cli.MAPPER.writeValueAsString(dir.resolve("calls.jsonl").toString()) + "}}}}");
        return new String[] {"--mcp-config", config.toString(), "--approve", "files/write_file"};
    }

    /** {@code bellows serve --a2a} in this JVM until the returned handle is closed. */
    private AutoCloseable serve(MockLlmServer model, AtomicReference<String> url, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("serve", "--a2a", "--port", "0", "--base-url", model.baseUrl().toString(),
                "--model", "mock", "--data-dir", dir.resolve("data").toString()));
        args.addAll(List.of(more));
        ServeInProcess server = ServeInProcess.start(dir, Map.of(), args.toArray(String[]::new));
        url.set(server.url());
        return server;
    }

    private static List<JsonNode> drive(String url, String transport, String steps) throws Exception {
        A2aJs.ClientRun run = A2aJs.runClient(url, steps, Map.of("TRANSPORT", transport), "", 120);
        assertThat(run.status()).as(run.stderr()).isZero();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.lines()) {
            lines.add(Cli.json(line));
        }
        assertThat(lines).as("no step failed: %s", run.lines()).noneMatch(line -> line.has("error"));
        return lines;
    }

    private static List<JsonNode> events(List<JsonNode> lines, int step) {
        return lines.stream().filter(l -> l.path("step").asInt() == step && l.has("event")).map(l -> l.path("event")).toList();
    }

    private static String state(JsonNode event) {
        return event.has("task") ? event.at("/task/status/state").asString() : event.at("/statusUpdate/status/state").asString();
    }

    @Test
    void theSdkClientRunsAnApprovedTaskOnBellowsOverBothBindings() throws Exception {
        MockScript script = MockScript.of(
                MockTurn.content(call("task_completion", "{\"result\": \"Paris is the capital of France.\"}")),
                MockTurn.content(WRITE), MockTurn.content(call("task_completion", "{\"result\": \"planned\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Lyon is second.\"}")),
                MockTurn.content(WRITE), MockTurn.content(call("task_completion", "{\"result\": \"planned again\"}")));
        AtomicReference<String> url = new AtomicReference<>();
        try (MockLlmServer model = MockLlmServer.start(script);
             AutoCloseable server = serve(model, url, approvals())) {
            int turn = 0;
            for (String transport : List.of("JSONRPC", "HTTP+JSON")) {
                List<JsonNode> lines = drive(url.get(), transport, """
                        [{"op":"card"},{"op":"stream","text":"What is the capital of France?"},{"op":"get"},{"op":"list"},
                         {"op":"stream","text":"Make a plan"},{"op":"stream","text":"approve","answer":true}]""");
                JsonNode card = lines.getFirst().path("card");
                assertThat(card.at("/supportedInterfaces/0/protocolVersion").asString()).isEqualTo("1.0");
                assertThat(card.at("/capabilities/streaming").asBoolean()).isTrue();
                List<JsonNode> answer = events(lines, 1);
                assertThat(state(answer.getLast())).isEqualTo("TASK_STATE_COMPLETED");
                assertThat(answer).anyMatch(e -> e.has("artifactUpdate"));
                JsonNode task = lines.stream().filter(l -> l.has("task")).findFirst().orElseThrow().path("task");
                assertThat(task.at("/status/state").asString()).isEqualTo("TASK_STATE_COMPLETED");
                assertThat(task.toString()).contains(turn == 0 ? "Paris is the capital of France." : "Lyon is second.");
                JsonNode list = lines.stream().filter(l -> l.has("list")).findFirst().orElseThrow().path("list");
                assertThat(list.path("tasks")).isNotEmpty();
                List<JsonNode> waiting = events(lines, 4);
                assertThat(state(waiting.getLast())).isEqualTo("TASK_STATE_INPUT_REQUIRED");
                JsonNode question = waiting.getLast().at("/statusUpdate/status/message/parts");
                assertThat(question.toString()).contains("\"waiting\"", "write_file", "a.txt");
                List<JsonNode> approved = events(lines, 5);
                assertThat(state(approved.getLast())).isEqualTo("TASK_STATE_COMPLETED");
                turn++;
            }
        }
    }

    @Test
    void theSdkClientSubscribesCancelsAndGetsPushesFromBellows() throws Exception {
        String hang = "<tool>{\"server_name\": \"files\", \"tool_name\": \"hang\", \"arguments\": {\"path\": \"x\"}}</tool>";
        AtomicReference<String> url = new AtomicReference<>();
        try (MockLlmServer model = MockLlmServer.start(MockScript.of(MockTurn.content(hang)));
             AutoCloseable server = serve(model, url, approvals())) {
            List<JsonNode> lines = drive(url.get(), "HTTP+JSON", """
                    [{"op":"webhook"},{"op":"stream","text":"Hang on","name":"h"},{"op":"await","name":"h","events":2},
                     {"op":"subscribe","name":"s"},{"op":"await","name":"s","events":1},
                     {"op":"push-create"},{"op":"push-get"},{"op":"push-list"},
                     {"op":"cancel"},{"op":"join","name":"h"},{"op":"join","name":"s"},{"op":"await-pushes","count":1}]""");
            assertThat(state(events(lines, 1).getLast())).isEqualTo("TASK_STATE_CANCELED");
            assertThat(state(events(lines, 3).getFirst())).isEqualTo("TASK_STATE_WORKING");
            assertThat(state(events(lines, 3).getLast())).isEqualTo("TASK_STATE_CANCELED");
            JsonNode config = lines.stream().filter(l -> l.has("config")).findFirst().orElseThrow().path("config");
            assertThat(config.path("url").asString()).endsWith("/hook");
            assertThat(lines.stream().filter(l -> l.has("configs")).findFirst().orElseThrow().path("configs")).hasSize(1);
            JsonNode cancelled = lines.stream().filter(l -> "cancel".equals(l.path("op").asString())).findFirst().orElseThrow();
            assertThat(cancelled.at("/task/status/state").asString()).isEqualTo("TASK_STATE_CANCELED");
            JsonNode push = lines.stream().filter(l -> l.has("pushes")).findFirst().orElseThrow().at("/pushes/0");
            assertThat(push.path("token").asString()).isEqualTo("push-token");
            assertThat(push.path("body").toString()).contains(cancelled.at("/task/id").asString());
        }
    }

    @Test
    void bellowsA2aSendTalksToBellowsServeA2a() throws Exception {
        MockScript script = MockScript.of(
                MockTurn.content(call("task_completion", "{\"result\": \"Paris.\"}")),
                MockTurn.content(WRITE), MockTurn.content(call("task_completion", "{\"result\": \"planned\"}")));
        AtomicReference<String> url = new AtomicReference<>();
        try (MockLlmServer model = MockLlmServer.start(script);
             AutoCloseable server = serve(model, url, approvals())) {
            Cli.Run done = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "a2a", "send", url.get(), "Capital?");
            assertThat(done.status()).as(done.err()).isZero();
            assertThat(done.out()).contains("Paris.");
            Cli.Run asked = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "a2a", "send", url.get(), "Plan it");
            assertThat(asked.status()).as(asked.err()).isEqualTo(3);
            Matcher hint = Pattern.compile("--task-id (\\S+) --context-id (\\S+)").matcher(asked.err());
            assertThat(hint.find()).as(asked.err()).isTrue();
            Cli.Run approved = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "a2a", "send", url.get(), "approve",
                    "--task-id", hint.group(1), "--context-id", hint.group(2));
            assertThat(approved.status()).as(approved.err()).isZero();
            assertThat(approved.out()).contains("planned");
        }
    }
}
