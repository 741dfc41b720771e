package dev.bellows.mcp.server;

import dev.bellows.agent.Agent;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.server.AgentServer;
import dev.bellows.server.Endpoint;
import dev.bellows.server.ServerExchange;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * Agents offered as MCP tools over Streamable HTTP, on the official MCP Java SDK's server: an
 * {@link Endpoint} to {@link AgentServer.Builder#mount mount} on an {@link AgentServer}, whose
 * gate checks every request's {@code Host}, {@code Origin}, body type and bearer token before
 * it gets here.
 *
 * <pre>{@code
 * McpAgentServer mcp = McpAgentServer.builder()
 *         .agent("researcher", "Finds facts and answers with them", researcher)
 *         .build();
 * AgentServer server = AgentServer.builder(agent).mount(mcp).build();   // POST /mcp
 * }</pre>
 *
 * <p>Each agent is a tool named after it whose input is {@code {"task": string}} and whose
 * result is the agent's final answer as text (a run that ends otherwise is a tool error saying
 * how it ended). Each call runs the agent in a fresh session. While it runs, a client that sent
 * a progress token gets the run's steps as progress notifications (the iterations, the tool
 * calls and their outcomes, a sub-agent's steps under its name). The client's
 * {@code notifications/cancelled} cancels the call (the model request, the tools), as does the
 * client leaving the call's stream. A call of the agent that needs a person's approval is
 * asked of the client through elicitation ({@code approve}, and a {@code reason} when denied)
 * when the client declared that capability, and the run goes on with the decision (a
 * {@link DefaultAgent}; another {@link Agent} cannot be carried on); without it the call is a
 * tool error that names the waiting call, and nothing of it runs.
 *
 * <p>Thread-safe. {@link #close()} cancels the calls running and ends every session.
 */
public final class McpAgentServer implements Endpoint, AutoCloseable {

    /** Where it is served unless told otherwise. */
    public static final String DEFAULT_PATH = "/mcp";

    /** MCP's tool names: 1 to 128 of letters, digits, {@code _}, {@code -} and {@code .}. */
    private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    private final String path;
    private final ExchangeTransport transport;
    private final McpAsyncServer server;
    private final ExecutorService calls;

    private McpAgentServer(Builder builder) {
        this.path = builder.path;
        McpJsonMapper mapper = McpJsonDefaults.getMapper();
        this.transport = new ExchangeTransport(mapper, builder.maxRequestBytes, ExchangeTransport.MAX_SESSIONS);
        this.calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("mcp-agent-call-", 0).factory());
        List<McpServerFeatures.AsyncToolSpecification> tools = new ArrayList<>();
        for (Offered offered : builder.agents.values()) {
            McpSchema.Tool tool = McpSchema.Tool.builder()
                    .name(offered.name())
                    .description(offered.description())
                    .inputSchema(AgentCall.inputSchema())
                    .build();
            tools.add(McpServerFeatures.AsyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler((exchange, request) -> {
                        Cancellation cancellation = exchange.transportContext()
                                .get(ExchangeTransport.CANCELLATION) instanceof Cancellation given ? given
                                : new Cancellation();
                        AgentCall call = new AgentCall(offered.name(), offered.agent(), exchange, cancellation,
                                request.progressToken());
                        return Mono.fromFuture(() -> CompletableFuture.supplyAsync(
                                () -> call.run(request.arguments()), calls));
                    })
                    .build());
        }
        this.server = McpServer.async(transport)
                .serverInfo(builder.serverName, builder.serverVersion)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .requestTimeout(builder.questionTimeout)
                .tools(tools)
                .build();
    }

    /** A builder with no agent yet, served at {@value #DEFAULT_PATH}. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean serves(String path) {
        return this.path.equals(path);
    }

    @Override
    public void handle(ServerExchange exchange) throws IOException {
        transport.handle(exchange);
    }

    /** How many calls are running now. */
    public int runningCalls() {
        return transport.runningCalls();
    }

    /**
     * Stops: takes no new request (503), lets the calls running go on for up to {@code grace},
     * then cancels those left and ends every session.
     */
    public void shutdown(Duration grace) throws InterruptedException {
        transport.stopTaking();
        long deadline = System.nanoTime() + grace.toNanos();
        while (transport.runningCalls() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        close();
    }

    /** Takes no new request (503), cancels the calls running and ends every session. Idempotent. */
    @Override
    public void close() {
        transport.closeAll();
        server.close();
        calls.shutdown();
    }

    private record Offered(String name, String description, Agent agent) {
    }

    /** Says which agents are offered, and where. Not thread-safe. */
    public static final class Builder {

        private final Map<String, Offered> agents = new LinkedHashMap<>();
        private String path = DEFAULT_PATH;
        private long maxRequestBytes = 1024 * 1024;
        private String serverName = "bellows";
        private String serverVersion = "1";
        private Duration questionTimeout = Duration.ofMinutes(10);

        private Builder() {
        }

        /**
         * Offers {@code agent} as the tool {@code name} (MCP's tool names: letters, digits,
         * {@code _}, {@code -} and {@code .}, at most 128).
         *
         * @throws IllegalArgumentException for a name MCP does not allow, or one offered already
         */
        public Builder agent(String name, String description, Agent agent) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(description, "description");
            Objects.requireNonNull(agent, "agent");
            if (!TOOL_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("\"" + name + "\" is no MCP tool name: 1 to 128 of letters, digits,"
                        + " _, - and .");
            }
            if (agents.containsKey(name)) {
                throw new IllegalArgumentException("an agent named \"" + name + "\" is offered already");
            }
            agents.put(name, new Offered(name, description, agent));
            return this;
        }

        /** The path served (default {@value #DEFAULT_PATH}). */
        public Builder path(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("the path must start with /: " + path);
            }
            this.path = path;
            return this;
        }

        /** The largest request body (default 1 MiB); larger ones get 413. */
        public Builder maxRequestBytes(long maxRequestBytes) {
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be at least 1");
            }
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        /** The name and version the server gives clients in {@code initialize} (default {@code bellows}). */
        public Builder serverInfo(String name, String version) {
            this.serverName = Objects.requireNonNull(name, "name");
            this.serverVersion = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * How long a question to the client (an approval, by elicitation) may go unanswered
         * before the call is denied (default 10 minutes: a person answers it).
         */
        public Builder questionTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the timeout must be positive");
            }
            this.questionTimeout = timeout;
            return this;
        }

        /**
         * The endpoint.
         *
         * @throws IllegalStateException when no agent was given
         */
        public McpAgentServer build() {
            if (agents.isEmpty()) {
                throw new IllegalStateException("no agent to offer: give one with agent(name, description, agent)");
            }
            return new McpAgentServer(this);
        }
    }
}
