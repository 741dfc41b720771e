package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static dev.bellows.server.ServerFixture.turn;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.memory.SessionStore;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.BufferedReader;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An approved call cut short (the client went away while it ran, or the server was shut down
 * under it) leaves its thread's waiting run with every call decided: the thread's next run
 * carries it on, never running the call again, and the model reads that its outcome is unknown.
 */
class CutShortResumeTest {

    record Box(String name) {
    }

    @TempDir
    Path dir;

    /** How many times the slow tool started. */
    final AtomicInteger started = new AtomicInteger();
    /** Counted down once the slow tool is running. */
    final CountDownLatch running = new CountDownLatch(1);

    ServerFixture server(SessionStore store, MockScript script) throws Exception {
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("pack", "Packs a box, slowly.", Box.class,
                (context, box) -> {
                    started.incrementAndGet();
                    running.countDown();
                    try {
                        Thread.sleep(Duration.ofMinutes(5));       // until the run is cancelled
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("packing was cut short", e);
                    }
                    return ToolResult.of("packed " + box.name());
                }));
        return new ServerFixture(script, b -> b.sessionStore(store), tools, JettyAgentServer.IDLE_TIMEOUT,
                agent -> agent.requireApproval("local/pack"));
    }

    /** The call that waits for approval, then the model's next answer. */
    static MockScript script(String next) {
        return MockScript.of(
                turn(call("pack", "{\"name\": \"books\"}")),
                turn(call("task_completion", "{\"result\": \"" + next + "\"}")));
    }

    static ObjectNode approve(String threadId, String callId) {
        ObjectNode input = runInput(threadId, "Pack the books.");
        input.putArray("resume").addObject().put("interruptId", callId).put("status", "resolved")
                .putObject("payload").put("approved", true);
        return input;
    }

    /** Interrupts at call_1_1, then approves it on a stream read until the tool runs, and returns that stream. */
    HttpResponse<InputStream> approveAndWaitForTheCall(ServerFixture server) throws Exception {
        List<JsonNode> first = server.agui(runInput("t", "Pack the books."));
        assertThat(first.get(first.size() - 1).at("/outcome/interrupts/0/id").asString()).isEqualTo("call_1_1");
        HttpResponse<InputStream> stream = server.client.send(HttpRequest.newBuilder(server.uri("/agui"))
                .POST(HttpRequest.BodyPublishers.ofString(approve("t", "call_1_1").toString()))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(running.await(30, TimeUnit.SECONDS)).as("the approved call runs").isTrue();
        return stream;
    }

    void assertCarriedOn(ServerFixture server, List<JsonNode> next) {
        JsonNode end = next.get(next.size() - 1);
        assertThat(end.get("type").asString()).as(next.toString()).isEqualTo("RUN_FINISHED");
        assertThat(end.get("result").asString()).isEqualTo("Hello again.");
        assertThat(started).hasValue(1);                  // never run twice
        String sent = server.provider.requests().get(server.provider.requests().size() - 1).messages().toString();
        assertThat(sent).contains("outcome of this call is unknown").contains("Are you there?");
    }

    @Test
    void aClientGoneMidApprovedCallLeavesTheThreadToCarryOnWithANewMessage() throws Exception {
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture server = server(store, script("Hello again."))) {
            HttpResponse<InputStream> stream = approveAndWaitForTheCall(server);
            stream.body().close();                                // the page's Stop
            List<JsonNode> next = whenFree(server, runInput("t", "Pack the books.", "Are you there?"));
            assertCarriedOn(server, next);
        }
    }

    @Test
    void aServerShutDownMidApprovedCallLeavesTheThreadToTheNextServer() throws Exception {
        try (SessionStore store = SqliteSessionStore.open(dir)) {
            try (ServerFixture first = server(store, script("never asked"))) {
                HttpResponse<InputStream> stream = approveAndWaitForTheCall(first);
                first.server.shutdown(Duration.ofMillis(100));
                try (BufferedReader reader = ServerFixture.lines(stream)) {
                    while (reader.readLine() != null) {
                        // read to the stream's end: the run ended cancelled
                    }
                }
            }
            MockScript rest = MockScript.of(turn(call("task_completion", "{\"result\": \"Hello again.\"}")));
            try (ServerFixture second = server(store, rest)) {
                List<JsonNode> next = second.agui(runInput("t", "Pack the books.", "Are you there?"));
                assertCarriedOn(second, next);
            }
        }
    }

    @Test
    void theSameResumeSentAgainCarriesTheCutShortRunOnWithoutRunningTheCallAgain() throws Exception {
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture server = server(store, script("Checked the box."))) {
            HttpResponse<InputStream> stream = approveAndWaitForTheCall(server);
            stream.body().close();
            List<JsonNode> again = whenFree(server, approve("t", "call_1_1"));
            JsonNode end = again.get(again.size() - 1);
            assertThat(end.get("type").asString()).as(again.toString()).isEqualTo("RUN_FINISHED");
            assertThat(end.get("result").asString()).isEqualTo("Checked the box.");
            assertThat(again.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_RESULT"))
                    .map(e -> e.get("content").asString()).toList()).anyMatch(c -> c.contains("unknown"));
            assertThat(started).hasValue(1);
            assertThat(server.provider.requests().get(1).messages().toString()).contains("outcome of this call is unknown");
        }
    }

    /** The events of a run of the thread once the cut-short request has let it go (409 until then). */
    static List<JsonNode> whenFree(ServerFixture server, JsonNode input) throws Exception {
        while (true) {
            HttpResponse<String> response = server.post("/agui", input.toString());
            if (response.statusCode() != 409) {
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                return ServerFixture.events(response.body());
            }
            Thread.sleep(20);
        }
    }
}
