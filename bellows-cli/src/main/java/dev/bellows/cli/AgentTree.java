package dev.bellows.cli;

import dev.bellows.a2a.client.A2aClientException;
import dev.bellows.a2a.client.RemoteAgent;
import dev.bellows.a2a.client.RemoteAgentConfig;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Handoff;
import dev.bellows.agent.ToolMode;
import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A configured agent (cli.md, "Agents that work together") made ready for a run: its
 * instructions, model, endpoint and tools on the run's builder, and each agent it may call
 * offered as a tool ({@link AgentTool}), built once per agent and depth, down to
 * {@code --max-depth}, where an agent is offered no other.
 *
 * <p>Closing it closes the providers it opened for agents with a {@code base_url} of their own.
 */
final class AgentTree implements AutoCloseable {

    private final AgentsConfig agents;
    private final Settings settings;
    private final Provider provider;
    private final StreamOptions streamOptions;
    private final ToolRegistry registry;
    private final dev.bellows.agent.ModelInterceptor interceptor;
    private final Map<String, Provider> endpoints = new HashMap<>();
    private final Map<String, DefaultAgent> built = new HashMap<>();
    private final Map<String, AgentTool> tools = new HashMap<>();
    /** Traces of the sub-agents' runs, as of the root's (their spans under the calls that run them). */
    private Telemetry telemetry = Telemetry.OFF;
    private final Map<String, RemoteAgent> remotes = new HashMap<>();
    private final Map<String, RemoteAgent> askingRemotes = new HashMap<>();
    private final java.util.function.Function<String, String> env;
    /** Where a sub-agent's builder comes from: a fresh one, or a durable run's workflow's. */
    private java.util.function.Supplier<DefaultAgent.Builder> builders = DefaultAgent::builder;
    /** The root's builder has its provider already (a durable run's): configure leaves it. */
    private boolean rootHasProvider;

    /** How many agents of a parallel workflow run at once: enough for a handful, few enough for a local model. */
    static final int PARALLEL_BOUND = 4;

    /**
     * @param provider the command line's provider, for agents without a {@code base_url}
     * @param registry the run's tools (its MCP servers'), from which each agent takes its own
     * @param env the environment the remote agents' {@code ${VAR}} headers are read from
     */
    AgentTree(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
              java.util.function.Function<String, String> env) {
        this(settings, provider, streamOptions, registry, env, null);
    }

    /**
     * As above, every sub-agent also given {@code interceptor} (an evaluation's token counter,
     * so that a run's tokens are its sub-agents' too); null for none.
     */
    AgentTree(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
              java.util.function.Function<String, String> env, dev.bellows.agent.ModelInterceptor interceptor) {
        this.env = env;
        this.interceptor = interceptor;
        this.agents = settings.agents();
        this.settings = settings;
        this.provider = provider;
        this.streamOptions = streamOptions;
        this.registry = registry;
    }

    /**
     * For a durable run's workflow (bellows worker): the sub-agents' builders come from
     * {@code builders} (the workflow's, with its provider), and the root keeps the provider it has.
     */
    AgentTree inWorkflow(java.util.function.Supplier<DefaultAgent.Builder> builders) {
        this.builders = builders;
        this.rootHasProvider = true;
        return this;
    }

    /**
     * Refuses, naming the path, what a durable run cannot hold: a workflow run as the root, and
     * among the agents {@code spec} may reach, a remote agent or one with a {@code base_url} of
     * its own (the workers' model calls go to the worker's one provider, and the workflow makes
     * no I/O of its own).
     */
    void checkDurable(AgentsConfig.Spec spec) throws UsageException {
        if (spec.workflow()) {
            throw new UsageException("--agent " + spec.name() + ": a workflow (sequence or parallel) is not yet a durable"
                    + " run's agent: give it to an agent that calls it (\"agents\": [\"" + spec.name() + "\"])");
        }
        java.util.Deque<String> next = new java.util.ArrayDeque<>(List.of(spec.name()));
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!next.isEmpty()) {
            String name = next.poll();
            if (!seen.add(name)) {
                continue;
            }
            if (agents.remote(name) != null) {
                throw new UsageException("agents." + name + ": a remote agent (a2a) cannot be part of a durable run yet");
            }
            AgentsConfig.Spec at = agents.get(name);
            if (at.baseUrl() != null) {
                throw new UsageException("agents." + name + ".base_url: not for a durable run: every agent's model calls"
                        + " go to the worker's endpoint (--base-url)");
            }
            next.addAll(at.uses());
        }
    }

    /** Which of the sub-agents' calls need approval; null: those {@code --approve} names. */
    private java.util.function.Predicate<dev.bellows.tool.ToolCall> approvals;

    /**
     * The sub-agents ask for approval of the calls {@code needsApproval} accepts, instead of
     * those {@code --approve} names: a chat's, which leaves out the tools its user approved for
     * the rest of the chat ({@code a}). Set before the first {@link #configure}.
     */
    AgentTree approving(java.util.function.Predicate<dev.bellows.tool.ToolCall> needsApproval) {
        this.approvals = needsApproval;
        return this;
    }

    /** Traces and metrics for the sub-agents' runs too; set before the first {@link #configure}. */
    AgentTree traced(Telemetry telemetry) {
        this.telemetry = telemetry;
        return this;
    }

    /**
     * Gives the root agent's builder what {@code spec} says: the run's own settings fill the rest.
     * Every agent it may hand the conversation to, and theirs in turn, is built now, so that a
     * problem of theirs is a usage error before the run begins.
     */
    DefaultAgent.Builder configure(DefaultAgent.Builder builder, AgentsConfig.Spec spec) throws UsageException {
        DefaultAgent.Builder configured = own(builder, spec, 0, !rootHasProvider);
        java.util.Deque<String> next = new java.util.ArrayDeque<>(spec.handoffs());
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (!next.isEmpty()) {
            String name = next.poll();
            if (seen.add(name)) {
                handoffTarget(name, 0);
                if (agents.remote(name) == null) {      // a remote agent's own handoffs are its business
                    next.addAll(agents.get(name).handoffs());
                }
            }
        }
        return configured;
    }

    /**
     * The workflow {@code spec} as an agent of its own ({@code --agent} naming a workflow): its
     * agents run at depth 1, and {@code listener} hears its events.
     */
    dev.bellows.agent.Agent workflow(AgentsConfig.Spec spec, dev.bellows.agent.AgentListener listener)
            throws UsageException {
        return tool(spec.name(), 0).asAgent(listener);
    }

    /** The workflow {@code spec} as an agent of its own, whose runs' events their callers read. */
    dev.bellows.agent.Agent workflow(AgentsConfig.Spec spec) throws UsageException {
        return tool(spec.name(), 0).asAgent();
    }

    /**
     * The agent {@code name} as the target of a handoff made at {@code depth}: it takes over the
     * conversation at the same depth. A model agent (the same one for every handoff to it), or a
     * workflow run as an agent of its own.
     */
    dev.bellows.agent.Agent handoffTarget(String name, int depth) throws UsageException {
        if (agents.remote(name) != null) {
            return asking(name);        // its question keeps the conversation and the next run answers it
        }
        AgentsConfig.Spec spec = agents.get(name);
        return spec.workflow() ? tool(name, depth).asAgent() : agent(name, depth);
    }

    private DefaultAgent.Builder own(DefaultAgent.Builder builder, AgentsConfig.Spec spec, int depth)
            throws UsageException {
        return own(builder, spec, depth, true);
    }

    private DefaultAgent.Builder own(DefaultAgent.Builder builder, AgentsConfig.Spec spec, int depth,
                                     boolean setProvider) throws UsageException {
        String path = "agents." + spec.name();
        for (String target : spec.handoffs()) {
            builder.handoff(Handoff.to(target, () -> {
                try {
                    return handoffTarget(target, depth);
                } catch (UsageException e) {
                    // configure() built every target before the run began: this one was fine then
                    throw new IllegalStateException(path + ".handoffs: " + e.getMessage(), e);
                }
            }).description(handoffDescription(target)));
        }
        String model = spec.model() != null ? spec.model() : settings.model();
        if (setProvider) {
            builder.provider(provider(spec, model));
        }
        builder.name(spec.name())
                .model(model)
                .instructions(spec.instructions() != null ? spec.instructions() : settings.system())
                .toolRegistry(tools(spec, depth))
                .toolMode(spec.kind() == AgentsConfig.Kind.REACT ? ToolMode.REACT
                        : settings.toolMode() == ToolMode.REACT ? ToolMode.TAGS : settings.toolMode());
        return builder;
    }

    /**
     * The agent {@code name} as a tool of an agent at {@code depth - 1}, made once: a model agent,
     * or a workflow whose agents run at the next depth.
     */
    private AgentTool tool(String name, int depth) throws UsageException {
        String key = name + "@" + depth;
        AgentTool tool = tools.get(key);
        if (tool == null && agents.remote(name) != null) {
            // its question makes the calling run wait (exit 3, a chat's question, an AG-UI interrupt)
            tool = AgentTool.of(name, remoteDescription(remote(name)), asking(name));
            tools.put(key, tool);
        }
        if (tool == null) {
            AgentsConfig.Spec spec = agents.get(name);
            if (spec.workflow()) {
                List<AgentTool> members = new ArrayList<>();
                for (String member : spec.members()) {
                    members.add(tool(member, depth + 1));
                }
                tool = switch (spec.kind()) {
                    case SEQUENCE -> AgentTool.sequence(name, description(spec), members);
                    case PARALLEL -> AgentTool.parallel(name, description(spec), members,
                            spec.then() == null ? null : tool(spec.then(), depth + 1), PARALLEL_BOUND);
                    case LOOP -> AgentTool.loop(name, description(spec), members.getFirst(),
                            spec.until() == null ? answer -> false : answer -> answer.contains(spec.until()),
                            spec.maxRounds());
                    case ROUTER -> AgentTool.router(name, description(spec), members,
                            handoffTarget(spec.then(), depth + 1));
                    case DEFAULT, REACT -> throw new IllegalStateException(name + " is no workflow");
                };
            } else {
                tool = AgentTool.of(name, description(spec), agent(name, depth));
            }
            tools.put(key, tool);
        }
        return tool;
    }

    /** The model agent {@code name} as it runs at {@code depth} (1 for one the root calls). */
    private DefaultAgent agent(String name, int depth) throws UsageException {
        String key = name + "@" + depth;
        DefaultAgent agent = built.get(key);
        if (agent == null) {
            AgentsConfig.Spec spec = agents.get(name);
            DefaultAgent.Builder builder = telemetry.instrument(builders.get())
                    .streamOptions(streamOptions)
                    .maxIterations(settings.maxIterations())
                    .maxToolResultTokens(settings.maxToolResultTokens())
                    .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                    .retryPolicy(RetryPolicy.defaults().withMaxRetries(settings.maxRetries()));
            if (approvals != null) {
                builder.requireApproval(approvals);
            } else {
                for (String pattern : settings.approve()) {
                    builder.requireApproval(pattern);
                }
            }
            if (interceptor != null) {
                builder.modelInterceptor(interceptor);
            }
            agent = own(builder, spec, depth).build();
            built.put(key, agent);
        }
        return agent;
    }

    /**
     * The agent's tools: those of its {@code mcp_servers} and {@code tools} (each the command
     * line's when not given), and below {@code --max-depth} the agents it calls.
     */
    private ToolRegistry tools(AgentsConfig.Spec spec, int depth) throws UsageException {
        String path = "agents." + spec.name();
        boolean calls = !spec.agents().isEmpty() && depth < settings.maxDepth();
        if (spec.tools() == null && spec.mcpServers() == null && !calls) {
            return registry;
        }
        List<RegisteredTool> all = registry.tools();
        if (spec.tools() != null) {
            for (String tool : spec.tools()) {
                if (all.stream().noneMatch(registered -> registered.toolName().equals(tool))) {
                    throw new UsageException(path + ".tools: no tool \"" + tool + "\" (the tools: "
                            + String.join(", ", all.stream().map(RegisteredTool::toolName).distinct().toList())
                            + ")");
                }
            }
        }
        ToolRegistry own = new ToolRegistry();
        List<RegisteredTool> chosen = new ArrayList<>();
        for (RegisteredTool registered : all) {
            boolean byServer = spec.mcpServers() != null && spec.mcpServers().contains(registered.serverName());
            boolean byName = spec.tools() != null && spec.tools().contains(registered.toolName());
            if ((spec.tools() == null && spec.mcpServers() == null) || byServer || byName) {
                chosen.add(registered);
            }
        }
        for (RegisteredTool registered : chosen) {
            own.register(registered.serverName(), registered.tool());
        }
        if (calls) {
            for (String name : spec.agents()) {
                try {
                    own.register(tool(name, depth + 1));
                } catch (IllegalArgumentException e) {
                    throw new UsageException(path + ".agents: " + name + " has the name of one of its tools");
                }
            }
        }
        return own;
    }

    /**
     * The remote agent {@code name} of {@code "a2a"}, made once: its headers resolved now (a
     * variable that is not set is a usage error naming the header), its card read when first needed.
     */
    RemoteAgent remote(String name) throws UsageException {
        RemoteAgent remote = remotes.get(name);
        if (remote == null) {
            RemoteAgentConfig config = agents.remote(name);
            java.util.Map<String, String> headers;
            try {
                headers = config.headers(env);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());      // names the header and the variable, never a value
            }
            remote = RemoteAgent.of(name, () -> dev.bellows.a2a.client.A2aClient.builder(config.url()).headers(headers)
                    .connect(), List.of());
            remotes.put(name, remote);
        }
        return remote;
    }

    /**
     * The remote agent {@code name} as a sub-agent: its runs end {@code interrupted} when its
     * task asks for input ({@link RemoteAgent#interrupting()}), made once.
     */
    RemoteAgent asking(String name) throws UsageException {
        RemoteAgent asking = askingRemotes.get(name);
        if (asking == null) {
            asking = remote(name).interrupting();
            askingRemotes.put(name, asking);
        }
        return asking;
    }

    /** What the calling model reads about a remote agent: its card's words, or why they could not be read. */
    private static String remoteDescription(RemoteAgent remote) {
        String does;
        try {
            does = remote.description();
        } catch (A2aClientException | dev.bellows.a2a.A2aException e) {
            // tried again when it is called: the model may still try it, and reads why it failed
            does = "The remote agent " + remote.name() + " (its card could not be read now: "
                    + BellowsCommand.oneLine(e.getMessage()) + ").";
        }
        return "Gives a task to the remote agent " + remote.name() + " and returns its answer. " + does;
    }

    /** What the model reads about handing the conversation to {@code name}. */
    private String handoffDescription(String name) throws UsageException {
        if (agents.remote(name) != null) {
            return remoteDescription(remote(name));
        }
        AgentsConfig.Spec spec = agents.get(name);
        return spec.workflow() ? description(spec)
                : spec.instructions() == null ? "" : "Its instructions: " + spec.instructions();
    }

    /** What the agent is offered as (to a model, or over MCP). */
    static String description(AgentsConfig.Spec spec) {
        if (spec.kind() == AgentsConfig.Kind.SEQUENCE) {
            return "Gives a task to the agents " + String.join(", then ", spec.members()) + ", each given the one"
                    + " before's answer, and returns the last one's answer.";
        }
        if (spec.kind() == AgentsConfig.Kind.LOOP) {
            return "Gives a task to the agent " + spec.members().getFirst() + ", then its answer to it again, until"
                    + (spec.until() == null ? "" : " an answer says " + spec.until() + " or") + " " + spec.maxRounds()
                    + " rounds have run, and returns the last answer.";
        }
        if (spec.kind() == AgentsConfig.Kind.ROUTER) {
            return "Gives a task to the one of the agents " + String.join(", ", spec.members()) + " that "
                    + spec.then() + " picks for it, and returns its answer.";
        }
        if (spec.kind() == AgentsConfig.Kind.PARALLEL) {
            return "Gives a task to the agents " + String.join(", ", spec.members()) + " at once and returns their"
                    + " answers" + (spec.then() == null ? "" : " as " + spec.then() + " merges them") + ".";
        }
        String instructions = spec.instructions() == null ? "" : " Its instructions: " + spec.instructions();
        return "Gives a task to the agent " + spec.name() + " and returns its answer." + instructions;
    }

    private Provider provider(AgentsConfig.Spec spec, String model) throws UsageException {
        if (spec.baseUrl() == null) {
            return provider;
        }
        Provider own = endpoints.get(spec.baseUrl());
        if (own == null) {
            own = ModelOptions.provider(settings.withModel(model, spec.baseUrl(), "agents." + spec.name() + ".base_url"));
            endpoints.put(spec.baseUrl(), own);
        }
        return own;
    }

    @Override
    public void close() {
        for (RemoteAgent remote : remotes.values()) {
            remote.close();
        }
        for (RemoteAgent remote : askingRemotes.values()) {
            remote.close();
        }
        for (Provider own : endpoints.values()) {
            try {
                own.close();
            } catch (Exception e) {
                // closing an HTTP client: nothing to tell the user
            }
        }
    }
}
