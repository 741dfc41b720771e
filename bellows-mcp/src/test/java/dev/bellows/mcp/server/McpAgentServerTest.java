package dev.bellows.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.json.internal.Jackson;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.Background;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.NpmPackages;
import dev.bellows.testkit.StreamHold;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Agents offered over MCP, on a real Jetty server, each agent's model a mock model server, and
 * driven by the official MCP TypeScript SDK's client (@modelcontextprotocol/sdk, installed by
 * the test into .cache/): listing, a call whose nested steps arrive as progress, a call
 * cancelled with notifications/cancelled while its model answers, an approval asked by
 * elicitation, and refused without it. One server and one node process for the class.
 */
class McpAgentServerTest {

    static final String SDK = "@modelcontextprotocol/sdk@1.32.2";
    private static final String TOKEN = "mcp-test-token-0123456789";

    private static final List<MockLlmServer> models = new ArrayList<>();
    private static final List<AgentEvent> slowEvents = new CopyOnWriteArrayList<>();
    private static final List<String> writerNotes = new CopyOnWriteArrayList<>();
    private static final List<String> guardedNotes = new CopyOnWriteArrayList<>();
    private static StreamHold slowHeld;
    private static MockLlmServer slowModel;
    private static McpAgentServer mcp;
    private static JettyAgentServer http;

    record Note(String text) {
    }

    private static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    private static String done(String answer) {
        return call("task_completion", "{\"result\": \"" + answer + "\"}");
    }

    private static MockLlmServer model(MockTurn... turns) throws IOException {
        MockLlmServer server = MockLlmServer.start(MockScript.of(turns));
        models.add(server);
        return server;
    }

    private static DefaultAgent.Builder agent(MockLlmServer model) {
        return DefaultAgent.builder()
                .provider(OpenAiProvider.builder().baseUrl(model.baseUrl()).apiKey(ApiKey.of("sk-mock-0123456789")).build())
                .model("mock")
                .toolMode(ToolMode.TAGS);
    }

    private static ToolRegistry notes(List<String> into) {
        return new ToolRegistry().register(TypedTool.of("save_note", "Saves a note.", Note.class, (context, note) -> {
            into.add(note.text());
            return ToolResult.of("saved");
        }));
    }

    @BeforeAll
    static void serve() throws IOException {
        DefaultAgent checker = agent(model(MockTurn.content(done("confirmed")))).toolRegistry(new ToolRegistry()).build();
        DefaultAgent researcher = agent(model(
                MockTurn.content(call("checker", "{\"task\": \"Check the boiling point\"}")),
                MockTurn.content(done("Water boils at 100 C at sea level."))))
                .toolRegistry(new ToolRegistry().register(AgentTool.of("checker", "Checks facts", checker)))
                .build();
        // Held once the call's name has streamed and before its arguments end: the model still answers.
        slowHeld = StreamHold.after(0, 9);
        slowModel = MockLlmServer.builder(MockScript.of(MockTurn.content(
                        call("lookup", "{\"query\": \"the boiling point of water at sea level\"}"))))
                .hold(slowHeld).start();
        models.add(slowModel);
        DefaultAgent slow = agent(slowModel).listener(slowEvents::add).build();
        DefaultAgent writer = agent(model(MockTurn.content(call("save_note", "{\"text\": \"hello\"}")),
                MockTurn.content(done("saved the note"))))
                .toolRegistry(notes(writerNotes)).requireApproval("local/save_note").build();
        DefaultAgent guarded = agent(model(MockTurn.content(call("save_note", "{\"text\": \"secret plan\"}"))))
                .toolRegistry(notes(guardedNotes)).requireApproval("local/save_note").build();
        mcp = McpAgentServer.builder()
                .agent("researcher", "Finds facts", researcher)
                .agent("slow", "Looks things up", slow)
                .agent("writer", "Writes notes", writer)
                .agent("guarded", "Writes notes, with approval", guarded)
                .build();
        http = JettyAgentServer.start(AgentServer.builder().authToken(TOKEN).mount(mcp).build(), "127.0.0.1", 0);
    }

    @AfterAll
    static void stop() throws Exception {
        if (slowHeld != null) {
            slowHeld.release();
        }
        if (http != null) {
            http.close();
        }
        if (mcp != null) {
            mcp.close();
        }
        for (MockLlmServer model : models) {
            model.close();
        }
    }

    private static URI uri(String path) {
        return URI.create(http.uri().toString().replaceAll("/$", "") + path);
    }

    @Test
    void theOfficialTypeScriptClientListsCallsCancelsAndApproves(@TempDir Path dir) throws Exception {
        Path modules = NpmPackages.install(NpmPackages.cacheDir("mcp-sdk-client"), SDK);
        Path script = dir.resolve("agents-client.cjs");
        try (InputStream in = McpAgentServerTest.class.getResourceAsStream("agents-client.cjs")) {
            Files.write(script, in.readAllBytes());
        }
        ProcessBuilder node = new ProcessBuilder("node", script.toString(), uri("/mcp").toString(), TOKEN);
        node.environment().put("NODE_PATH", modules.toString());
        node.redirectError(dir.resolve("stderr.txt").toFile());
        Process process = node.start();
        CompletableFuture<String> stdout = Background.supply(() -> {
            try (InputStream in = process.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the client did not end in 120 s: " + Files.readString(dir.resolve("stderr.txt")));
        }
        String printed = stdout.get(10, TimeUnit.SECONDS).strip();
        String err = Files.readString(dir.resolve("stderr.txt"));
        JsonNode out = Jackson.JSON.readTree(printed.lines().reduce((a, b) -> b).orElse("{}"));
        assertThat(out.path("crashed").asString("")).as(printed + "\n" + err).isEmpty();

        // listed: every agent, with the one input, task
        assertThat(out.get("tools").findValuesAsString("name")).containsExactly("researcher", "slow", "writer", "guarded");
        JsonNode schema = out.at("/tools/0/inputSchema");
        assertThat(schema.at("/properties/task/type").asString()).isEqualTo("string");
        assertThat(schema.at("/required/0").asString()).isEqualTo("task");

        // called: the answer as text, the nested agent's steps among the progress messages
        assertThat(out.at("/researcher/text").asString()).isEqualTo("Water boils at 100 C at sea level.");
        assertThat(out.at("/researcher/isError").asBoolean()).isFalse();
        List<String> messages = new ArrayList<>();
        for (JsonNode progress : out.at("/researcher/progress")) {
            messages.add(progress.path("message").asString());
        }
        assertThat(messages).as(messages.toString()).contains("iteration 1", "calling checker",
                "checker: iteration 1", "checker: calling task_completion", "checker: ended task_completion",
                "iteration 2");
        assertThat(messages.indexOf("checker: calling task_completion")).isLessThan(messages.indexOf("iteration 2"));
        List<Double> numbers = new ArrayList<>();
        out.at("/researcher/progress").forEach(p -> numbers.add(p.path("progress").asDouble()));
        assertThat(numbers).isSorted().doesNotHaveDuplicates();

        // cancelled while the model still streams: the run ends cancelled, its model request aborted
        assertThat(out.at("/slow/cancelled").asBoolean()).as(out.get("slow").toString()).isTrue();
        assertThat(out.at("/slow/error").asString()).contains("the person pressed stop");
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (slowEvents.stream().noneMatch(e -> e instanceof LoopEvent.LoopEnd) && System.nanoTime() < bound) {
            Thread.sleep(20);
        }
        assertThat(slowEvents).filteredOn(e -> e instanceof LoopEvent.LoopEnd)
                .singleElement().extracting(e -> ((LoopEvent.LoopEnd) e).reason()).isEqualTo(LoopEndReason.CANCELLED);
        assertThat(slowHeld.isReleased()).as("the model's stream was still held when the run ended").isFalse();
        assertThat(slowModel.requests()).hasSize(1);

        // asked by elicitation, approved: the call ran once and the agent answered
        assertThat(out.at("/writer/text").asString()).isEqualTo("saved the note");
        assertThat(out.at("/writer/questions/0").asString()).contains("save_note", "hello");
        assertThat(writerNotes).containsExactly("hello");

        // a client without elicitation: a tool error naming the call, and nothing ran
        assertThat(out.at("/guarded/isError").asBoolean()).isTrue();
        assertThat(out.at("/guarded/text").asString()).contains("save_note", "approval", "elicitation");
        assertThat(guardedNotes).isEmpty();

        // no task: a tool error, not a run
        assertThat(out.get("missingTask").toString()).contains("task");
        assertThat(mcp.runningCalls()).isZero();
    }

    @Test
    void theServersGateChecksTokenOriginAndMethod() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        try {
            String initialize = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {"
                    + "\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}}";
            HttpResponse<String> noToken = client.send(post(initialize).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(noToken.statusCode()).isEqualTo(401);
            HttpResponse<String> foreign = client.send(post(initialize).header("Authorization", "Bearer " + TOKEN)
                    .header("Origin", "http://attacker.example").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(foreign.statusCode()).isEqualTo(403);
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(uri("/mcp")).header("Authorization", "Bearer " + TOKEN)
                    .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(405);
            HttpResponse<String> unknown = client.send(post("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}")
                    .header("Authorization", "Bearer " + TOKEN).header("Mcp-Session-Id", "no-such-session").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(unknown.body()).contains("initialize again");
            HttpResponse<String> notJson = client.send(post("{not json").header("Authorization", "Bearer " + TOKEN).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(notJson.statusCode()).isEqualTo(400);
            HttpResponse<String> ok = client.send(post(initialize).header("Authorization", "Bearer " + TOKEN).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("Mcp-Session-Id")).isPresent();
            assertThat(Jackson.JSON.readTree(ok.body()).at("/result/capabilities/tools").isObject()).isTrue();
            HttpResponse<String> ended = client.send(HttpRequest.newBuilder(uri("/mcp")).header("Authorization", "Bearer " + TOKEN)
                    .header("Mcp-Session-Id", ok.headers().firstValue("Mcp-Session-Id").orElseThrow()).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ended.statusCode()).isEqualTo(204);
        } finally {
            client.close();
        }
    }

    private static HttpRequest.Builder post(String body) {
        return HttpRequest.newBuilder(uri("/mcp")).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @Test
    void shuttingDownCancelsTheCallsStillRunningAndTakesNoNewRequest() throws Exception {
        StreamHold held = StreamHold.after(0, 9);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        HttpClient client = HttpClient.newHttpClient();
        try (MockLlmServer model = MockLlmServer.builder(MockScript.of(MockTurn.content(
                        call("lookup", "{\"query\": \"the boiling point of water at sea level\"}")))).hold(held).start()) {
            McpAgentServer own = McpAgentServer.builder().agent("slow", "Looks things up",
                    agent(model).listener(events::add).build()).build();
            try (JettyAgentServer server = JettyAgentServer.start(AgentServer.builder().mount(own).build(), "127.0.0.1", 0)) {
                URI mcpUri = URI.create(server.uri().toString().replaceAll("/$", "") + "/mcp");
                HttpResponse<String> initialized = client.send(HttpRequest.newBuilder(mcpUri)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {"
                                        + "\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": "
                                        + "{\"name\": \"t\", \"version\": \"1\"}}}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
                CompletableFuture<HttpResponse<String>> call = client.sendAsync(HttpRequest.newBuilder(mcpUri)
                        .header("Content-Type", "application/json").header("Mcp-Session-Id", session)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\":"
                                + " \"tools/call\", \"params\": {\"name\": \"slow\", \"arguments\": {\"task\": \"Look\"}}}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                held.reached().get(60, TimeUnit.SECONDS);     // the model is answering
                assertThat(own.runningCalls()).isEqualTo(1);

                own.shutdown(java.time.Duration.ZERO);

                String streamed = call.get(60, TimeUnit.SECONDS).body();
                assertThat(streamed).as("no result for a cancelled call").doesNotContain("\"result\"");
                assertThat(streamed).as("no progress without a progress token").doesNotContain("notifications/progress");
                long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (events.stream().noneMatch(e -> e instanceof LoopEvent.LoopEnd) && System.nanoTime() < bound) {
                    Thread.sleep(20);
                }
                assertThat(events).filteredOn(e -> e instanceof LoopEvent.LoopEnd).singleElement()
                        .extracting(e -> ((LoopEvent.LoopEnd) e).reason()).isEqualTo(LoopEndReason.CANCELLED);
                HttpResponse<String> after = client.send(HttpRequest.newBuilder(mcpUri)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"ping\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(after.statusCode()).isEqualTo(503);
            }
        } finally {
            held.release();
            client.close();
        }
    }

    @Test
    void aBuilderRefusesWhatMcpCannotName() {
        DefaultAgent any = DefaultAgent.builder().provider(new dev.bellows.testkit.ScriptedProvider(MockScript.of()))
                .model("m").build();
        assertThatThrownBy(() -> McpAgentServer.builder().agent("two words", "d", any))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no MCP tool name");
        assertThatThrownBy(() -> McpAgentServer.builder().agent("a", "d", any).agent("a", "d", any))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offered already");
        assertThatThrownBy(() -> McpAgentServer.builder().build()).isInstanceOf(IllegalStateException.class);
    }
}
