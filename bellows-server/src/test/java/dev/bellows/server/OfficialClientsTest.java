package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.turn;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real clients against a real server: the official AG-UI client ({@code @ag-ui/client}'s
 * HttpAgent, which verifies the order of events as it applies them) with every event checked
 * against {@code @ag-ui/core}'s schemas, and the official {@code openai} npm client. Both are
 * installed by the test into {@code .cache/} (git-ignored).
 */
class OfficialClientsTest {

    static final String AGUI_CLIENT = "@ag-ui/client@1.0.0";
    static final String AGUI_CORE = "@ag-ui/core@1.0.0";
    /** v4: the newest major that runs on Node.js 20 (7 needs 22), and what most code in the wild runs. */
    static final String OPENAI = "openai@^4";

    private static final String PLAN = "{\"steps\": [{\"description\": \"add\", \"status\": \"%s\"}]}";

    @Test
    void theOfficialAgUiClientVerifiesEveryEventKindAndItsSchema(@TempDir Path dir) throws Exception {
        Path modules = NodeScripts.install("agui", AGUI_CLIENT, AGUI_CORE);
        Path script = NodeScripts.resource("agui-client.cjs", dir);
        MockScript turns = MockScript.of(
                turn("<thinking>Add, then answer.</thinking>Adding. " + call("add", "{\"a\": 40, \"b\": 2}")),
                turn(call("update_plan", PLAN.formatted("in_progress"))),
                MockTurn.status(500).errorMessage("overloaded"),
                turn(call("update_plan", PLAN.formatted("completed"))),
                turn(call("task_completion", "{\"result\": \"42\"}")),
                turn(call("task_completion", "{\"result\": \"43\"}")),
                MockTurn.status(400).errorMessage("the model refused"));
        try (ServerFixture fixture = new ServerFixture(turns, b -> { })) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", script.toString(), fixture.uri("/agui").toString()),
                    Map.of("NODE_PATH", modules.toString()), 180);
            JsonNode out = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(out.path("crashed").asString("")).as(result.err()).isEmpty();

            JsonNode first = out.get("first");
            assertThat(first.get("error").isNull()).as(first.toString()).isTrue();
            assertThat(first.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
            assertThat(first.get("result").asString()).isEqualTo("42");
            List<String> types = ServerFixture.MAPPER.convertValue(first.get("types"),
                    ServerFixture.MAPPER.getTypeFactory().constructCollectionType(List.class, String.class));
            assertThat(types).contains("RUN_STARTED", "RUN_FINISHED", "STEP_STARTED", "STEP_FINISHED",
                    "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
                    "REASONING_END", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START",
                    "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "STATE_SNAPSHOT", "STATE_DELTA", "CUSTOM");
            assertThat(first.get("toolNames").toString()).contains("add", "update_plan", "task_completion");
            assertThat(first.at("/stateAfter/plan/0/status").asString()).isEqualTo("completed");

            // the same thread again: the client sends the whole history back, echoes included
            JsonNode second = out.get("second");
            assertThat(second.get("error").isNull()).as(second.toString()).isTrue();
            assertThat(second.get("invalid")).isEmpty();
            assertThat(second.get("result").asString()).isEqualTo("43");

            JsonNode failing = out.get("failing");
            assertThat(failing.get("types").toString()).contains("RUN_ERROR");
            assertThat(failing.get("invalid")).isEmpty();
            assertThat(out.get("warnings")).as("the client stripped nothing unknown").isEmpty();
        }
    }

    @Test
    void theOfficialOpenAiClientStreamsAndReadsWholeAnswers(@TempDir Path dir) throws Exception {
        Path modules = NodeScripts.install("npm", OPENAI);
        Path script = NodeScripts.resource("openai-client.cjs", dir);
        MockScript turns = MockScript.of(
                turn("<thinking>Easy.</thinking>" + call("add", "{\"a\": 40, \"b\": 2}")),
                turn(call("task_completion", "{\"result\": \"It is 42.\"}")),
                turn(call("task_completion", "{\"result\": \"43\"}")));
        try (ServerFixture fixture = new ServerFixture(turns, b -> b.authToken("tok-interop-1").modelName("mock"))) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", script.toString(), fixture.uri("/v1").toString(),
                    "tok-interop-1"), Map.of("NODE_PATH", modules.toString()), 180);
            JsonNode out = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(out.path("crashed").asString("")).as(result.err()).isEmpty();
            assertThat(out.get("models").toString()).contains("mock");
            assertThat(out.get("streamed").asString()).isEqualTo("It is 42.");
            assertThat(out.get("reasoning").asString()).isEqualTo("Easy.");
            assertThat(out.get("finish").asString()).isEqualTo("stop");
            assertThat(out.get("whole").asString()).isEqualTo("43");
            assertThat(out.get("wrongKey").asInt()).isEqualTo(401);
        }
    }

    @Test
    void theOfficialOpenAiClientRaisesAFailedRunAsAnApiError(@TempDir Path dir) throws Exception {
        Path modules = NodeScripts.install("npm", OPENAI);
        Path script = NodeScripts.resource("openai-errors.cjs", dir);
        // each run works past the second the server once waited before committing to 200, then fails
        MockScript turns = MockScript.of(
                turn(call("pause", "{\"ms\": 1500}")),
                dev.bellows.testkit.MockTurn.status(400).errorMessage("the model refused the request"),
                turn(call("pause", "{\"ms\": 1500}")),
                dev.bellows.testkit.MockTurn.status(400).errorMessage("the model refused the request"));
        dev.bellows.tool.ToolRegistry tools = new dev.bellows.tool.ToolRegistry().register(dev.bellows.tool.TypedTool.of(
                "pause", "Waits a while.", CompletionOutcomesTest.Pause.class, (context, pause) -> {
                    Thread.sleep(pause.ms());
                    return dev.bellows.tool.ToolResult.of("waited");
                }));
        try (ServerFixture fixture = new ServerFixture(turns, b -> { }, tools)) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", script.toString(), fixture.uri("/v1").toString()),
                    Map.of("NODE_PATH", modules.toString()), 180);
            JsonNode out = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(out.path("crashed").asString("")).as(result.err()).isEmpty();
            assertThat(out.at("/whole/status").asInt()).as(out.toString()).isEqualTo(502);
            assertThat(out.at("/whole/message").asString()).contains("refused");
            assertThat(out.at("/whole/type").asString()).isEqualTo("server_error");
            assertThat(out.at("/streamed/message").asString()).as(out.toString()).contains("refused");
            assertThat(out.at("/streamed/returned").isMissingNode()).as(out.toString()).isTrue();
        }
    }
}
