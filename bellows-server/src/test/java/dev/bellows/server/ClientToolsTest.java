package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static dev.bellows.server.ServerFixture.turn;
import static dev.bellows.server.ServerFixture.types;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.testkit.MockScript;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cli.md "bellows serve": tools offered in {@code tools} are the client's: the model may call
 * them, the run ends after that call's {@code TOOL_CALL_END}, and the client sends the result
 * as a {@code tool} message in its next run, which carries the run on. The agent's own tools
 * are not changed by them (another thread's run does not see them).
 */
class ClientToolsTest {

    static ObjectNode withTool(ObjectNode input, String name) {
        ObjectNode tool = input.withArray("tools").addObject().put("name", name).put("description", "Asks the user.");
        ObjectNode parameters = tool.putObject("parameters").put("type", "object");
        parameters.putObject("properties").putObject("question").put("type", "string");
        parameters.putArray("required").add("question");
        return input;
    }

    static JsonNode last(List<JsonNode> events) {
        return events.get(events.size() - 1);
    }

    @Test
    void theOfficialClientsOwnToolIsCalledAnsweredAndTheRunGoesOn(@TempDir Path dir) throws Exception {
        Path modules = NodeScripts.install("agui", OfficialClientsTest.AGUI_CLIENT, OfficialClientsTest.AGUI_CORE);
        Path script = NodeScripts.resource("client-tools.cjs", dir);
        MockScript turns = MockScript.of(
                turn("Let me ask. " + call("pick_colour", "{\"options\": [\"red\", \"blue\"]}")),
                turn(call("task_completion", "{\"result\": \"Painted it blue.\"}")));
        try (ServerFixture fixture = new ServerFixture(turns, b -> { })) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", script.toString(), fixture.uri("/agui").toString()),
                    Map.of("NODE_PATH", modules.toString()), 180);
            JsonNode out = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(out.path("crashed").asString("")).as(result.err()).isEmpty();

            JsonNode first = out.get("first");
            assertThat(first.get("error").isNull()).as(first.toString()).isTrue();
            assertThat(first.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
            assertThat(first.at("/calls/0/name").asString()).isEqualTo("pick_colour");
            assertThat(first.at("/calls/0/args/options/1").asString()).isEqualTo("blue");
            String id = first.at("/calls/0/id").asString();
            assertThat(first.get("pending").toString()).isEqualTo("[\"" + id + "\"]");
            List<String> types = ServerFixture.MAPPER.convertValue(first.get("types"),
                    ServerFixture.MAPPER.getTypeFactory().constructCollectionType(List.class, String.class));
            // the run ends after that call's TOOL_CALL_END: no result, nothing after but the closing events
            assertThat(types).doesNotContain("TOOL_CALL_RESULT").endsWith("TOOL_CALL_END", "STEP_FINISHED", "RUN_FINISHED");

            JsonNode second = out.get("second");
            assertThat(second.get("error").isNull()).as(second.toString()).isTrue();
            assertThat(second.get("invalid")).isEmpty();
            assertThat(second.get("result").asString()).isEqualTo("Painted it blue.");
            assertThat(out.get("warnings")).isEmpty();
            // the model read the client's result, and was not asked for the first answer again
            assertThat(fixture.provider.turnsTaken()).isEqualTo(2);
            String sent = fixture.provider.requests().get(1).messages().toString();
            assertThat(sent).contains("the user picked blue");
            // the first request offered the client's tool beside the agent's own
            String offered = fixture.provider.requests().get(0).messages().toString();
            assertThat(offered).contains("pick_colour").contains("add");
        }
    }

    @Test
    void aClientToolNamedAsTheAgentsOwnIs400AndTheAgentsToolsStayTheirs() throws Exception {
        MockScript turns = MockScript.of(
                turn(call("add", "{\"a\": 1, \"b\": 2}") + call("ask_user", "{\"question\": \"Go on?\"}")
                        + call("add", "{\"a\": 3, \"b\": 4}")),
                turn(call("task_completion", "{\"result\": \"Done.\"}")),
                turn(call("ask_user", "{\"question\": \"Again?\"}")));
        try (ServerFixture fixture = new ServerFixture(turns, b -> { })) {
            for (String taken : List.of("add", "task_completion")) {
                HttpResponse<String> refused = fixture.post("/agui", withTool(runInput("named", "Hi."), taken).toString());
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
                assertThat(refused.body()).contains("\"param\":\"tools[0].name\"").contains(taken);
            }
            assertThat(fixture.provider.turnsTaken()).isZero();

            // calls in order: add runs, ask_user waits for the client, the second add is held behind it
            List<JsonNode> first = fixture.agui(withTool(runInput("held", "Add twice."), "ask_user"));
            assertThat(last(first).at("/outcome/type").asString()).isEqualTo("success");
            assertThat(last(first).at("/outcome/pendingToolCallIds").toString()).isEqualTo("[\"call_1_2\"]");
            assertThat(first.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_RESULT"))
                    .map(e -> e.get("toolCallId").asString()).toList()).containsExactly("call_1_1");

            ObjectNode answer = withTool(runInput("held", "Add twice."), "ask_user");
            answer.withArray("messages").addObject().put("id", "t1").put("role", "tool").put("toolCallId", "call_1_2")
                    .put("content", "yes");
            List<JsonNode> second = fixture.agui(answer);
            assertThat(types(second)).startsWith("RUN_STARTED", "TOOL_CALL_RESULT", "TOOL_CALL_RESULT");
            assertThat(second.get(1).get("toolCallId").asString()).isEqualTo("call_1_2");
            assertThat(second.get(1).get("content").asString()).isEqualTo("yes");
            assertThat(second.get(2).get("toolCallId").asString()).isEqualTo("call_1_3");
            assertThat(second.get(2).get("content").asString()).isEqualTo("7");
            assertThat(last(second).get("result").asString()).isEqualTo("Done.");

            // another thread without the tool: the model's call of it is an unknown tool, not a wait
            List<JsonNode> other = fixture.agui(runInput("other", "Ask me."));
            assertThat(other.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_RESULT")).findFirst()
                    .orElseThrow().get("content").asString()).contains("ask_user");
            assertThat(last(other).at("/outcome/pendingToolCallIds").isMissingNode()).isTrue();
        }
    }
}
