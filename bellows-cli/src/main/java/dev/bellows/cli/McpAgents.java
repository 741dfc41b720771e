package dev.bellows.cli;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.mcp.server.McpAgentServer;
import dev.bellows.provider.Provider;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolRegistry;
import java.util.function.Supplier;

/**
 * What {@code bellows serve --mcp} offers over MCP (cli.md, "Agents that work together"): each
 * model agent of the config file's {@code "agents"}, as a tool named after it, each built as
 * {@code bellows run --agent NAME} builds it (its own instructions, model, tools and the agents
 * it calls, the command line's settings for the rest); with no agents configured, the command
 * line's agent as the tool {@value #COMMAND_LINES}. Workflows ({@code sequence},
 * {@code parallel}) are offered too, each run as {@code bellows run --agent WORKFLOW} runs it (a
 * call of theirs that needs approval ends the tool call with an error saying so: a workflow run
 * by itself cannot wait).
 *
 * <p>Closing it stops the endpoint (the calls still running cancelled) and closes the providers
 * opened for agents with a {@code base_url} of their own.
 */
final class McpAgents implements AutoCloseable {

    /** The tool name of the command line's agent, as the A2A card names it. */
    static final String COMMAND_LINES = "bellows";

    private final AgentTree tree;
    private final McpAgentServer endpoint;

    private McpAgents(AgentTree tree, McpAgentServer endpoint) {
        this.tree = tree;
        this.endpoint = endpoint;
    }

    /**
     * @param base        a builder with the command line's settings, for each configured agent
     * @param commandLine the command line's agent, offered when no agent is configured
     * @param env         the environment remote agents' {@code ${VAR}} headers are read from
     * @param telemetry   traces and metrics for the offered agents' sub-agents
     */
    static McpAgents of(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
                        Supplier<DefaultAgent.Builder> base, DefaultAgent commandLine, String commandLineDescription,
                        long maxRequestBytes, java.util.function.Function<String, String> env, Telemetry telemetry)
            throws UsageException {
        AgentTree tree = new AgentTree(settings, provider, streamOptions, registry, env).traced(telemetry);
        try {
            McpAgentServer.Builder builder = McpAgentServer.builder().maxRequestBytes(maxRequestBytes);
            for (AgentsConfig.Spec spec : settings.agents().agents().values()) {
                builder.agent(spec.name(), AgentTree.description(spec), spec.workflow() ? tree.workflow(spec)
                        : tree.configure(base.get(), spec).build());
            }
            if (settings.agents().agents().isEmpty()) {
                builder.agent(COMMAND_LINES, commandLineDescription, commandLine);
            }
            return new McpAgents(tree, builder.build());
        } catch (UsageException | RuntimeException e) {
            tree.close();
            throw e;
        }
    }

    McpAgentServer endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        endpoint.close();
        tree.close();
    }
}
