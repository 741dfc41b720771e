package dev.bellows.a2a.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.memory.SessionStore;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A Bellows agent with a scripted model, served over A2A by a real server on 127.0.0.1 (Jetty,
 * a free port, bellows-server's gate), and raw HTTP calls to it.
 */
final class A2aFixture implements AutoCloseable {

    static final ObjectMapper MAPPER = Jackson.JSON;
    static final String TOKEN = "a2a-test-token";

    record Target(String path) {
    }

    final ScriptedProvider provider;
    final A2aServer a2a;
    final AgentServer server;
    final JettyAgentServer http;
    final HttpClient client = HttpClient.newHttpClient();
    /** Every write_file call that ran. */
    final List<String> writes = new CopyOnWriteArrayList<>();

    final String token;

    A2aFixture(MockScript script, SessionStore store, Consumer<A2aServer.Builder> settings) throws IOException {
        this(script, store, settings, TOKEN);
    }

    /** @param token the server's bearer token, or null for none (callers then told apart by what they send) */
    A2aFixture(MockScript script, SessionStore store, Consumer<A2aServer.Builder> settings, String token) throws IOException {
        this(script, store, settings, token, java.util.function.UnaryOperator.identity());
    }

    /** The agent's model the scripted one as {@code model} wraps it (to hold or watch its answers). */
    A2aFixture(MockScript script, java.util.function.UnaryOperator<dev.bellows.provider.Provider> model) throws IOException {
        this(script, null, b -> { }, TOKEN, model);
    }

    A2aFixture(MockScript script, SessionStore store, Consumer<A2aServer.Builder> settings, String token,
               java.util.function.UnaryOperator<dev.bellows.provider.Provider> model) throws IOException {
        this.token = token;
        this.provider = new ScriptedProvider(script);
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Target.class,
                (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        DefaultAgent agent = DefaultAgent.builder().provider(model.apply(provider)).model("mock").toolRegistry(tools)
                .requireApproval("local/write_file").build();
        BellowsExecutor executor = store == null ? BellowsExecutor.of(agent)
                : BellowsExecutor.of(agent, store, s -> dev.bellows.memory.ConversationMemory.builder().store(s).build());
        A2aServer.Builder builder = A2aServer.builder(AgentCards.of("helper", "Writes files when asked.", agent, token != null),
                executor).pushNotifications(true).heartbeat(Duration.ofMillis(200));
        if (store != null) {
            builder.taskStore(new SessionTaskStore(store));
        }
        settings.accept(builder);
        this.a2a = builder.build();
        this.server = AgentServer.builder(agent).authToken(token).mount(a2a).build();
        this.http = JettyAgentServer.start(server, "127.0.0.1", 0);
    }

    A2aFixture(MockScript script) throws IOException {
        this(script, null, b -> { });
    }

    static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    static MockTurn answer(String text, String result) {
        return MockTurn.content(text + call("task_completion", "{\"result\": " + MAPPER.valueToTree(result) + "}")).chunkSize(5);
    }

    URI uri(String path) {
        return http.uri().resolve(path);
    }

    static ObjectNode message(String text, String taskId, String contextId) {
        ObjectNode message = MAPPER.createObjectNode();
        message.put("messageId", "m-" + System.nanoTime());
        message.put("role", "ROLE_USER");
        message.putArray("parts").addObject().put("text", text);
        if (taskId != null) {
            message.put("taskId", taskId);
        }
        if (contextId != null) {
            message.put("contextId", contextId);
        }
        return message;
    }

    static ObjectNode send(ObjectNode message) {
        ObjectNode params = MAPPER.createObjectNode();
        params.set("message", message);
        return params;
    }

    /** A JSON-RPC call's whole response. */
    JsonNode rpc(String method, JsonNode params) throws Exception {
        return rpc(method, params, "Bearer " + (token == null ? "anyone" : token));
    }

    JsonNode rpc(String method, JsonNode params, String authorization) throws Exception {
        HttpResponse<String> response = client.send(rpcRequest(method, params, authorization).build(),
                HttpResponse.BodyHandlers.ofString());
        return MAPPER.readTree(response.body());
    }

    HttpRequest.Builder rpcRequest(String method, JsonNode params, String authorization) {
        ObjectNode body = MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", method);
        body.set("params", params);
        return HttpRequest.newBuilder(uri(A2aServer.JSONRPC_PATH)).POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .header("Content-Type", "application/json").header("A2A-Version", "1.0")
                .header("Authorization", authorization);
    }

    /** A JSON-RPC streaming call's events (each {@code result}), read to the end of the stream. */
    List<JsonNode> rpcStream(String method, JsonNode params) throws Exception {
        HttpResponse<java.io.InputStream> response = client.send(rpcRequest(method, params, "Bearer " + (token == null ? "anyone" : token)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        List<JsonNode> events = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    JsonNode frame = MAPPER.readTree(line.substring(6));
                    events.add(frame.has("result") ? frame.get("result") : frame);
                }
            }
        }
        return events;
    }

    /** An HTTP+JSON call. */
    HttpResponse<String> rest(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(A2aServer.REST_PATH + path))
                .header("A2A-Version", "1.0").header("Authorization", "Bearer " + (token == null ? "anyone" : token))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/a2a+json");
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        a2a.shutdown(Duration.ZERO);
        server.shutdown(Duration.ZERO);
        client.shutdownNow();
        http.close();
    }
}
