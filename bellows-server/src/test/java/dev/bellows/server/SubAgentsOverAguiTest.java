package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Sub-agents over AG-UI: an agent that calls a sub-agent that calls another streams each one's
 * work between {@code SUBAGENT_STARTED} and {@code SUBAGENT_FINISHED} (or {@code SUBAGENT_ERROR}),
 * every nested event carrying its {@code subagentRunId}, as the official client (whose verifier
 * checks the sub-agents' lifecycle and attribution) and {@code @ag-ui/core}'s schemas accept; and
 * a chat completion answers with the root agent's answer only.
 */
class SubAgentsOverAguiTest {

    private static DefaultAgent agent(String name, ToolRegistry tools, MockTurn... turns) {
        return DefaultAgent.builder().name(name).provider(new ScriptedProvider(MockScript.of(turns))).model("mock")
                .toolRegistry(tools).build();
    }

    /** lead calls researcher, which thinks and calls checker, which adds; then lead calls broken, which fails. */
    private static ServerFixture server() throws Exception {
        ToolRegistry adding = new ToolRegistry().register(TypedTool.of("add", "Adds two numbers.", ServerFixture.Add.class,
                (context, args) -> ToolResult.of(args.a() + args.b())));
        DefaultAgent checker = agent("checker", adding,
                turn(call("add", "{\"a\": 40, \"b\": 2}")), turn(call("task_completion", "{\"result\": \"checked: 42\"}")),
                turn(call("task_completion", "{\"result\": \"checked again\"}")));
        DefaultAgent researcher = agent("researcher", new ToolRegistry().register(AgentTool.of("checker", "Checks", checker)),
                turn("<thinking>Look it up.</thinking>" + call("checker", "{\"task\": \"check 42\"}")),
                turn(call("task_completion", "{\"result\": \"researcher says 42\"}")),
                turn("<thinking>Sub-agent thought.</thinking>" + call("task_completion", "{\"result\": \"sub answer\"}")));
        DefaultAgent broken = agent("broken", new ToolRegistry(), MockTurn.status(400).errorMessage("the model refused"));
        DefaultAgent guarded = DefaultAgent.builder().name("guarded").model("mock").toolRegistry(adding)
                .provider(new ScriptedProvider(MockScript.of(turn(call("add", "{\"a\": 1, \"b\": 1}")))))
                .requireApproval("local/add").build();
        ToolRegistry leads = new ToolRegistry()
                .register(AgentTool.of("researcher", "Finds facts", researcher))
                .register(AgentTool.of("broken", "Always fails", broken))
                .register(AgentTool.of("guarded", "Asks first", guarded));
        MockScript lead = MockScript.of(
                turn(call("researcher", "{\"task\": \"find 40 + 2\"}")),
                turn(call("task_completion", "{\"result\": \"lead says 42\"}")),
                turn(call("broken", "{\"task\": \"try\"}")),
                turn(call("task_completion", "{\"result\": \"went on without it\"}")),
                turn(call("guarded", "{\"task\": \"add 1 and 1\"}")),
                turn(call("researcher", "{\"task\": \"once more\"}")),
                turn("<thinking>Root thought.</thinking>" + call("task_completion", "{\"result\": \"root answer\"}")));
        return new ServerFixture(lead, b -> { }, leads);
    }

    @Test
    void nestedRunsStreamBetweenSubagentEventsThatTheOfficialClientVerifies(@TempDir Path dir) throws Exception {
        Path modules = NodeScripts.install("agui", OfficialClientsTest.AGUI_CLIENT, OfficialClientsTest.AGUI_CORE);
        Path script = NodeScripts.resource("agui-subagents.cjs", dir);
        try (ServerFixture fixture = server()) {
            NodeScripts.Result result = NodeScripts.run(List.of("node", script.toString(), fixture.uri("/agui").toString(),
                    "nested", "failing", "waiting"), Map.of("NODE_PATH", modules.toString()), 180);
            JsonNode out = ServerFixture.MAPPER.readTree(result.out().strip().lines().reduce((a, b) -> b).orElse("{}"));
            assertThat(out.path("crashed").asString("")).as(result.err()).isEmpty();

            JsonNode nested = out.get("nested");
            assertThat(nested.get("error").isNull()).as(nested.toString()).isTrue();
            assertThat(nested.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
            assertThat(nested.get("result").asString()).isEqualTo("lead says 42");
            List<JsonNode> events = new ArrayList<>();
            nested.get("events").forEach(events::add);

            JsonNode callsResearcher = first(events, e -> type(e, "TOOL_CALL_START")
                    && e.path("toolCallName").asString("").equals("researcher"));
            assertThat(callsResearcher.has("subagentRunId")).isFalse();
            JsonNode researcher = first(events, e -> type(e, "SUBAGENT_STARTED") && e.get("name").asString().equals("researcher"));
            String researcherId = researcher.get("subagentRunId").asString();
            assertThat(researcher.get("parentToolCallId").asString()).isEqualTo(callsResearcher.get("toolCallId").asString());
            assertThat(researcher.has("parentSubagentRunId")).isFalse();
            assertThat(researcher.at("/metadata/task").asString()).isEqualTo("find 40 + 2");

            JsonNode callsChecker = first(events, e -> type(e, "TOOL_CALL_START")
                    && e.path("toolCallName").asString("").equals("checker"));
            assertThat(callsChecker.get("subagentRunId").asString()).isEqualTo(researcherId);
            assertThat(callsChecker.get("toolCallId").asString())
                    .isEqualTo(callsResearcher.get("toolCallId").asString() + "/call_1_1");
            JsonNode checker = first(events, e -> type(e, "SUBAGENT_STARTED") && e.get("name").asString().equals("checker"));
            String checkerId = checker.get("subagentRunId").asString();
            assertThat(checkerId).isNotEqualTo(researcherId);
            assertThat(checker.get("parentSubagentRunId").asString()).isEqualTo(researcherId);
            assertThat(checker.get("parentToolCallId").asString()).isEqualTo(callsChecker.get("toolCallId").asString());

            // the sub-agents' own work, attributed to them
            assertThat(first(events, e -> type(e, "REASONING_MESSAGE_CONTENT")).get("subagentRunId").asString())
                    .isEqualTo(researcherId);
            JsonNode added = first(events, e -> type(e, "TOOL_CALL_RESULT") && e.get("content").asString().equals("42"));
            assertThat(added.get("subagentRunId").asString()).isEqualTo(checkerId);
            assertThat(events.stream().filter(e -> type(e, "STEP_STARTED") && checkerId.equals(e.path("subagentRunId").asString(null))))
                    .hasSize(2);

            // each sub-agent ends with its answer before the result of the call that ran it
            int checkerEnds = index(events, e -> type(e, "SUBAGENT_FINISHED") && e.get("subagentRunId").asString().equals(checkerId));
            int researcherEnds = index(events, e -> type(e, "SUBAGENT_FINISHED")
                    && e.get("subagentRunId").asString().equals(researcherId));
            assertThat(events.get(checkerEnds).get("result").asString()).isEqualTo("checked: 42");
            assertThat(events.get(checkerEnds).at("/outcome/type").asString()).isEqualTo("success");
            assertThat(events.get(researcherEnds).get("result").asString()).isEqualTo("researcher says 42");
            int checkerResult = index(events, e -> type(e, "TOOL_CALL_RESULT")
                    && e.get("toolCallId").asString().equals(callsChecker.get("toolCallId").asString()));
            int researcherResult = index(events, e -> type(e, "TOOL_CALL_RESULT")
                    && e.get("toolCallId").asString().equals(callsResearcher.get("toolCallId").asString()));
            assertThat(checkerEnds).isLessThan(checkerResult).isLessThan(researcherEnds).isLessThan(researcherResult);
            assertThat(events.get(researcherResult).has("subagentRunId")).isFalse();
            assertThat(events.get(researcherResult).get("content").asString()).isEqualTo("researcher says 42");
            // nothing of a sub-agent's outside its STARTED .. FINISHED
            int researcherStarts = events.indexOf(researcher);
            for (int i = 0; i < events.size(); i++) {
                if (researcherId.equals(events.get(i).path("subagentRunId").asString(null))
                        && !type(events.get(i), "SUBAGENT_STARTED")) {
                    assertThat(i).isGreaterThan(researcherStarts).isLessThanOrEqualTo(researcherEnds);
                }
            }
            assertThat(nested.get("subagentMessages").asInt()).as("the client's messages keep who wrote them").isPositive();

            List<JsonNode> failed = verified(out.get("failing"), "went on without it");
            JsonNode error = first(failed, e -> type(e, "SUBAGENT_ERROR"));
            assertThat(error.get("code").asString()).isEqualTo("error");
            assertThat(error.get("message").asString()).contains("the model refused");
            assertThat(error.get("subagentRunId").asString())
                    .isEqualTo(first(failed, e -> type(e, "SUBAGENT_STARTED")).get("subagentRunId").asString());
            assertThat(failed.stream().filter(e -> type(e, "SUBAGENT_FINISHED"))).isEmpty();
            // a sub-agent that stops at a call waiting for approval makes the whole run wait: it ends
            // suspended, naming the waiting call by its outside id, and the run ends with the interrupt
            JsonNode waiting = out.get("waiting");
            assertThat(waiting.get("error").isNull()).as(waiting.toString()).isTrue();
            assertThat(waiting.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
            List<JsonNode> stopped = new ArrayList<>();
            waiting.get("events").forEach(stopped::add);
            JsonNode guardedCall = first(stopped, e -> type(e, "TOOL_CALL_START") && e.get("toolCallName").asString().equals("guarded"));
            String waitingId = guardedCall.get("toolCallId").asString() + "/call_1_1";
            JsonNode suspended = first(stopped, e -> type(e, "SUBAGENT_FINISHED"));
            assertThat(suspended.at("/outcome/type").asString()).isEqualTo("suspended");
            assertThat(suspended.at("/outcome/interruptIds/0").asString()).isEqualTo(waitingId);
            assertThat(stopped.stream().filter(e -> type(e, "SUBAGENT_ERROR"))).isEmpty();
            JsonNode runEnd = stopped.get(stopped.size() - 1);
            assertThat(type(runEnd, "RUN_FINISHED")).as(runEnd.toString()).isTrue();
            assertThat(runEnd.at("/outcome/type").asString()).isEqualTo("interrupt");
            assertThat(runEnd.at("/outcome/interrupts/0/id").asString()).isEqualTo(waitingId);
            assertThat(stopped.stream().filter(e -> type(e, "TOOL_CALL_RESULT")
                    && e.get("toolCallId").asString().equals(guardedCall.get("toolCallId").asString())))
                    .as("the call that runs the sub-agent has no result while it waits").isEmpty();
            assertThat(out.get("warnings")).as("the client stripped nothing unknown").isEmpty();

            // a chat completion answers with the root agent's answer: nothing of the sub-agents'
            HttpResponse<String> completion = fixture.post("/v1/chat/completions", """
                    {"model": "mock", "stream": true, "messages": [{"role": "user", "content": "Once more."}]}""");
            assertThat(completion.statusCode()).isEqualTo(200);
            StringBuilder content = new StringBuilder();
            StringBuilder reasoning = new StringBuilder();
            for (JsonNode chunk : ServerFixture.events(completion.body())) {
                content.append(chunk.at("/choices/0/delta/content").asString(""));
                reasoning.append(chunk.at("/choices/0/delta/reasoning_content").asString(""));
            }
            assertThat(content.toString()).isEqualTo("root answer");
            assertThat(reasoning.toString()).isEqualTo("Root thought.");
        }
    }

    /** A thread's events, once the client took the run without an error, every event valid, with {@code result}. */
    private static List<JsonNode> verified(JsonNode thread, String result) {
        assertThat(thread.get("error").isNull()).as(thread.toString()).isTrue();
        assertThat(thread.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
        assertThat(thread.get("result").asString()).isEqualTo(result);
        List<JsonNode> events = new ArrayList<>();
        thread.get("events").forEach(events::add);
        return events;
    }

    private static boolean type(JsonNode event, String type) {
        return event.get("type").asString().equals(type);
    }

    private static JsonNode first(List<JsonNode> events, Predicate<JsonNode> test) {
        return events.get(index(events, test));
    }

    private static int index(List<JsonNode> events, Predicate<JsonNode> test) {
        for (int i = 0; i < events.size(); i++) {
            if (test.test(events.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event in " + events);
    }
}
