package dev.bellows.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.TypedTool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A real server on 127.0.0.1 (Jetty, a free port) of an agent with a scripted model, and an HTTP client for it. */
final class ServerFixture implements AutoCloseable {

    static final ObjectMapper MAPPER = Jackson.JSON;

    record Add(int a, int b) {
    }

    final ScriptedProvider provider;
    final AgentServer server;
    final JettyAgentServer http;
    final HttpClient client = HttpClient.newHttpClient();

    ServerFixture(MockScript script, Consumer<AgentServer.Builder> settings, ToolRegistry tools) throws IOException {
        this(script, settings, tools, JettyAgentServer.IDLE_TIMEOUT);
    }

    ServerFixture(MockScript script, Consumer<AgentServer.Builder> settings, ToolRegistry tools,
                  java.time.Duration idleTimeout) throws IOException {
        this(script, settings, tools, idleTimeout, agentBuilder -> { });
    }

    ServerFixture(MockScript script, Consumer<AgentServer.Builder> settings, ToolRegistry tools,
                  java.time.Duration idleTimeout, Consumer<DefaultAgent.Builder> agentSettings) throws IOException {
        this.provider = new ScriptedProvider(script);
        DefaultAgent.Builder agentBuilder = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools);
        agentSettings.accept(agentBuilder);
        DefaultAgent agent = agentBuilder.build();
        AgentServer.Builder builder = AgentServer.builder(agent);
        settings.accept(builder);
        this.server = builder.build();
        this.http = JettyAgentServer.start(server, "127.0.0.1", 0, idleTimeout);
    }

    ServerFixture(MockScript script, Consumer<AgentServer.Builder> settings) throws IOException {
        this(script, settings, new ToolRegistry().register(TypedTool.of("add", "Adds two numbers.", Add.class,
                (context, args) -> dev.bellows.tool.ToolResult.of(args.a() + args.b()))));
    }

    static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    static MockTurn turn(String content) {
        return MockTurn.content(content).chunkSize(7);
    }

    URI uri(String path) {
        return http.uri().resolve(path);
    }

    static ObjectNode runInput(String threadId, String... userMessages) {
        ObjectNode input = MAPPER.createObjectNode();
        input.put("threadId", threadId);
        input.put("runId", "run-" + System.nanoTime());
        var messages = input.putArray("messages");
        int i = 0;
        for (String text : userMessages) {
            messages.addObject().put("id", threadId + "-u" + (i++)).put("role", "user").put("content", text);
        }
        input.putArray("tools");
        input.putArray("context");
        input.putObject("state");
        input.putObject("forwardedProps");
        return input;
    }

    HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The AG-UI events of one run, read to the end of the stream. */
    List<JsonNode> agui(JsonNode input, String... headers) throws Exception {
        HttpResponse<String> response = post("/agui", input.toString(), headers);
        if (response.statusCode() != 200) {
            throw new AssertionError("status " + response.statusCode() + ": " + response.body());
        }
        return events(response.body());
    }

    static List<JsonNode> events(String body) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new java.io.StringReader(body))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                    events.add(MAPPER.readTree(line.substring(6)));
                }
            }
        }
        return events;
    }

    static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.get("type").asString()).toList();
    }

    static BufferedReader lines(HttpResponse<java.io.InputStream> response) {
        return new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.shutdown(java.time.Duration.ZERO);
        // The client's idle keep-alive connections go first: Jetty's stop waits for open
        // connections until its shutdown idle timeout (1 s) closes them, a second per test.
        client.shutdownNow();
        http.close();
    }
}
