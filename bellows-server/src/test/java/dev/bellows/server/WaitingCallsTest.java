package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static dev.bellows.server.ServerFixture.turn;
import static dev.bellows.server.ServerFixture.types;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run that stops for calls waiting on the outside (the loop's deferred calls) and the next run
 * of the thread that answers them, as AG-UI says: the waiting calls named by their ids (the
 * TOOL_CALL_START ids), answered by {@code tool} messages or {@code resume} entries, every one
 * of them, before the model is asked again.
 */
class WaitingCallsTest {

    record Question(String q) {
    }

    static ServerFixture fixture(MockScript script) throws Exception {
        return fixture(script, b -> { });
    }

    static ServerFixture fixture(MockScript script, java.util.function.Consumer<AgentServer.Builder> settings)
            throws Exception {
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("ask_human", "Asks the user.", Question.class,
                (context, q) -> ToolResult.of("never runs here")));
        return new ServerFixture(script, settings, tools, JettyAgentServer.IDLE_TIMEOUT,
                agent -> agent.toolInterceptor(chain -> chain.call().toolName().equals("ask_human") ? chain.defer()
                        : chain.proceed()));
    }

    @Test
    void aCallWaitingForTheClientEndsTheRunPendingAndItsToolMessageCarriesTheRunOn() throws Exception {
        MockScript script = MockScript.of(
                turn(call("ask_human", "{\"q\": \"Which colour?\"}")),
                turn(call("task_completion", "{\"result\": \"Blue it is.\"}")));
        try (ServerFixture fixture = fixture(script)) {
            List<JsonNode> first = fixture.agui(runInput("w1", "Paint it."));
            JsonNode start = first.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_START")).findFirst().orElseThrow();
            String callId = start.get("toolCallId").asString();
            assertThat(callId).isEqualTo("call_1_1");
            JsonNode finished = first.get(first.size() - 1);
            assertThat(finished.get("type").asString()).isEqualTo("RUN_FINISHED");
            assertThat(finished.at("/outcome/type").asString()).isEqualTo("success");
            assertThat(finished.at("/outcome/pendingToolCallIds/0").asString()).isEqualTo(callId);
            assertThat(types(first)).doesNotContain("TOOL_CALL_RESULT");

            // a new user message alone does not answer it
            HttpResponse<String> unanswered = fixture.post("/agui", runInput("w1", "Paint it.", "Hurry up").toString());
            assertThat(unanswered.statusCode()).isEqualTo(400);
            assertThat(unanswered.body()).contains("\"param\":\"resume\"").contains(callId);

            ObjectNode answer = runInput("w1", "Paint it.");
            answer.withArray("messages").addObject().put("id", "tool-1").put("role", "tool")
                    .put("toolCallId", callId).put("content", "blue");
            List<JsonNode> second = fixture.agui(answer);
            assertThat(types(second)).startsWith("RUN_STARTED", "TOOL_CALL_RESULT").endsWith("RUN_FINISHED");
            JsonNode result = second.get(1);
            assertThat(result.get("toolCallId").asString()).isEqualTo(callId);
            assertThat(result.get("content").asString()).isEqualTo("blue");
            assertThat(second.get(second.size() - 1).get("result").asString()).isEqualTo("Blue it is.");
            assertThat(fixture.provider.requests().get(1).messages().toString()).contains("blue");
            assertThat(fixture.provider.turnsTaken()).isEqualTo(2);     // the waiting answer was not asked again
        }
    }

    @Test
    void resumeEntriesAnswerWaitingCallsAndAnUnknownInterruptIs400() throws Exception {
        MockScript script = MockScript.of(
                turn(call("ask_human", "{\"q\": \"One?\"}") + call("ask_human", "{\"q\": \"Two?\"}")),
                turn(call("task_completion", "{\"result\": \"Both answered.\"}")));
        try (ServerFixture fixture = fixture(script)) {
            List<JsonNode> first = fixture.agui(runInput("w2", "Ask twice."));
            JsonNode outcome = first.get(first.size() - 1).get("outcome");
            // the first deferred call stops the answer's calls: the second is held, not waiting yet
            assertThat(outcome.get("pendingToolCallIds").toString()).isEqualTo("[\"call_1_1\"]");

            ObjectNode wrong = runInput("w2", "Ask twice.");
            wrong.putArray("resume").addObject().put("interruptId", "call_9_9").put("status", "resolved")
                    .putObject("payload").put("result", "x");
            HttpResponse<String> unknown = fixture.post("/agui", wrong.toString());
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(unknown.body()).contains("resume[0].interruptId").contains("call_9_9");

            ObjectNode answers = runInput("w2", "Ask twice.");
            var resume = answers.putArray("resume");
            for (JsonNode id : outcome.get("pendingToolCallIds")) {
                resume.addObject().put("interruptId", id.asString()).put("status", "resolved")
                        .putObject("payload").put("result", "answer to " + id.asString());
            }
            List<JsonNode> second = fixture.agui(answers);
            // the held call runs on resume, and is deferred in its turn
            assertThat(second.get(second.size() - 1).at("/outcome/pendingToolCallIds").toString())
                    .isEqualTo("[\"call_1_2\"]");

            ObjectNode last = runInput("w2", "Ask twice.");
            last.putArray("resume").addObject().put("interruptId", "call_1_2").put("status", "resolved")
                    .putObject("payload").put("result", "two");
            List<JsonNode> third = fixture.agui(last);
            assertThat(third.get(third.size() - 1).get("result").asString()).isEqualTo("Both answered.");
            assertThat(fixture.provider.turnsTaken()).isEqualTo(2);
        }
    }

    @Test
    void aThreadInASessionStoreWaitsOnThisServerAndItsAnswerIsStored(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        MockScript script = MockScript.of(
                turn(call("ask_human", "{\"q\": \"Which colour?\"}")),
                turn(call("task_completion", "{\"result\": \"Blue it is.\"}")));
        try (dev.bellows.memory.SessionStore store = dev.bellows.sessions.sqlite.SqliteSessionStore.open(dir)) {
            try (ServerFixture fixture = fixture(script, b -> b.sessionStore(store))) {
                List<JsonNode> first = fixture.agui(runInput("w3", "Paint it."));
                assertThat(first.get(first.size() - 1).at("/outcome/pendingToolCallIds/0").asString()).isEqualTo("call_1_1");
                ObjectNode answer = runInput("w3", "Paint it.");
                answer.withArray("messages").addObject().put("id", "tool-1").put("role", "tool")
                        .put("toolCallId", "call_1_1").put("content", "blue");
                List<JsonNode> second = fixture.agui(answer);
                assertThat(second.get(second.size() - 1).get("result").asString()).isEqualTo("Blue it is.");
            }
            String stored = store.turns("w3").orElseThrow().toString();
            assertThat(stored).contains("Paint it.").contains("blue").contains("Blue it is.");
        }
    }
}
