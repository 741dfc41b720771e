package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.turn;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * How a chat completion ends when its run cannot answer: a call that needs approval is denied
 * with a reason the model reads (a completion has no thread to decide it on), and a failure is
 * an HTTP error with OpenAI's error body, however long the run took.
 */
class CompletionOutcomesTest {

    record Target(String path) {
    }

    record Pause(int ms) {
    }

    /** Every write_file call that ran. */
    final List<String> writes = new CopyOnWriteArrayList<>();

    ServerFixture server(MockScript script) throws Exception {
        ToolRegistry tools = new ToolRegistry()
                .register(TypedTool.of("write_file", "Writes a file.", Target.class, (context, target) -> {
                    writes.add(target.path());
                    return ToolResult.of("wrote " + target.path());
                }))
                .register(TypedTool.of("pause", "Waits a while.", Pause.class, (context, pause) -> {
                    try {
                        Thread.sleep(Duration.ofMillis(pause.ms()));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return ToolResult.of("waited");
                }));
        return new ServerFixture(script, b -> { }, tools, JettyAgentServer.IDLE_TIMEOUT,
                agent -> agent.requireApproval("local/write_file"));
    }

    static String request(boolean stream) {
        ObjectNode request = ServerFixture.MAPPER.createObjectNode().put("model", "bellows").put("stream", stream);
        request.putArray("messages").addObject().put("role", "user").put("content", "Write a.txt.");
        return request.toString();
    }

    static MockScript approvalScript() {
        return MockScript.of(
                turn(call("write_file", "{\"path\": \"a.txt\"}")),
                turn(call("task_completion", "{\"result\": \"I could not write a.txt here.\"}")));
    }

    @Test
    void aCallNeedingApprovalIsDeniedWithAReasonTheModelReadsAndTheCompletionAnswers() throws Exception {
        try (ServerFixture server = server(approvalScript())) {
            HttpResponse<String> plain = server.post("/v1/chat/completions", request(false));
            assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
            JsonNode completion = ServerFixture.MAPPER.readTree(plain.body());
            assertThat(completion.at("/choices/0/message/content").asString()).isEqualTo("I could not write a.txt here.");
            assertThat(completion.at("/choices/0/finish_reason").asString()).isEqualTo("stop");
            assertThat(writes).isEmpty();
            assertThat(server.provider.requests().get(1).messages().toString())
                    .contains("needs a person's approval").contains("chat completion cannot ask for")
                    .contains("/agui");
        }
        try (ServerFixture server = server(approvalScript())) {
            HttpResponse<String> streamed = server.post("/v1/chat/completions", request(true));
            assertThat(streamed.statusCode()).isEqualTo(200);
            StringBuilder content = new StringBuilder();
            for (JsonNode chunk : ServerFixture.events(streamed.body())) {
                assertThat(chunk.has("error")).as(chunk.toString()).isFalse();
                content.append(chunk.at("/choices/0/delta/content").asString(""));
            }
            assertThat(content.toString()).isEqualTo("I could not write a.txt here.");
            assertThat(streamed.body()).endsWith("data: [DONE]\n\n");
            assertThat(writes).isEmpty();
        }
    }

    /** A run that works past the second the old server waited before committing to 200, then fails. */
    static MockScript slowFailure() {
        return MockScript.of(
                turn(call("pause", "{\"ms\": 1500}")),
                MockTurn.status(400).errorMessage("the model refused the request"));
    }

    @Test
    void aNonStreamingFailureIsAnHttpErrorWithOpenAisErrorBody() throws Exception {
        try (ServerFixture server = server(slowFailure())) {
            HttpResponse<String> failed = server.post("/v1/chat/completions", request(false));
            assertThat(failed.statusCode()).as(failed.body()).isEqualTo(502);
            assertThat(failed.body()).as("no heartbeat before the body").startsWith("{");
            JsonNode error = ServerFixture.MAPPER.readTree(failed.body()).get("error");
            assertThat(error).isNotNull();
            assertThat(error.get("message").asString()).contains("refused");
            assertThat(error.get("type").asString()).isEqualTo("server_error");
            assertThat(error.has("param")).isTrue();
            assertThat(error.get("code").asString()).isEqualTo("error");
        }
    }

    @Test
    void aStreamedFailureAfterTheStatusIsAnErrorEventWithOpenAisErrorBody() throws Exception {
        try (ServerFixture server = server(slowFailure())) {
            HttpResponse<String> failed = server.post("/v1/chat/completions", request(true));
            assertThat(failed.statusCode()).isEqualTo(200);
            List<JsonNode> events = ServerFixture.events(failed.body());
            JsonNode error = events.get(events.size() - 1).get("error");
            assertThat(error).as(failed.body()).isNotNull();
            assertThat(error.get("message").asString()).contains("refused");
            assertThat(error.get("type").asString()).isEqualTo("server_error");
            assertThat(error.has("param")).isTrue();
            assertThat(error.get("code").asString()).isEqualTo("error");
        }
    }

    @Test
    void anHttpErrorBodyHasOpenAisFourFields() throws Exception {
        try (ServerFixture server = server(approvalScript())) {
            HttpResponse<String> bad = server.post("/v1/chat/completions", "{\"messages\": []}");
            assertThat(bad.statusCode()).isEqualTo(400);
            JsonNode error = ServerFixture.MAPPER.readTree(bad.body()).get("error");
            assertThat(error.has("message") && error.has("type") && error.has("param") && error.has("code"))
                    .as(bad.body()).isTrue();
        }
    }
}
