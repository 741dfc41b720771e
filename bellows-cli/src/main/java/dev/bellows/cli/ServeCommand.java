package dev.bellows.cli;

import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.McpClientOptions;

import dev.bellows.a2a.server.A2aServer;
import dev.bellows.a2a.server.AgentCards;
import dev.bellows.a2a.server.BellowsExecutor;
import dev.bellows.a2a.server.SessionTaskStore;
import dev.bellows.a2a.client.RemoteAgent;
import dev.bellows.a2a.client.RemoteAgentConfig;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows serve}: the agent over HTTP, as cli.md's "bellows serve" says: AG-UI at
 * {@code POST /agui}, OpenAI's chat completions at {@code POST /v1/chat/completions}, the chat
 * page at {@code /}, {@code /health}; threads in the session store. The model, loop and MCP
 * options are {@code bellows run}'s. SIGINT or SIGTERM: no new runs, the running ones
 * cancelled after {@code --grace-seconds}, exit 0.
 */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Serves the agent over HTTP: AG-UI event streams (POST /agui), an OpenAI-compatible endpoint"
                        + " (POST /v1/chat/completions), a chat page (GET /) and GET /health; with --a2a, over A2A 1.0 too.",
                "",
                "Each AG-UI threadId is a session in the session store (SQLite in the data directory, or"
                        + " --session-store). Model and loop settings as for bellows run."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:stopped by SIGINT or SIGTERM (the runs then going on were let finish or cancelled)",
                "1:the server could not start, or failed",
                "2:usage or configuration error"})
final class ServeCommand implements Callable<Integer> {

    /** The variable that gives the bearer token. */
    static final String TOKEN_ENV = "BELLOWS_SERVE_TOKEN";

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Mixin
    ModelOptions options;

    @Option(names = "--host", paramLabel = "H", description = "The address to listen on (default 127.0.0.1). Any other"
            + " than a loopback address needs --auth-token.")
    String host = "127.0.0.1";

    @Option(names = "--port", paramLabel = "N", description = "The port (default 0: a free one, printed on start).")
    int port;

    @Option(names = "--auth-token", paramLabel = "TOKEN", description = "The bearer token every endpoint but the page and"
            + " /health asks for (Authorization: Bearer TOKEN). Env " + TOKEN_ENV + ".")
    String authToken;

    @Option(names = "--allow-host", paramLabel = "HOST", description = "A host name or address (no port) this server"
            + " answers to besides loopback ones and --host (repeatable): the name clients reach it by. A request whose"
            + " Host header names any other gets 403 (DNS rebinding).")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--allow-origin", paramLabel = "ORIGIN", description = "An origin (https://app.example.com) whose"
            + " web pages may call this server, with CORS (repeatable). A browser request from any other origin but the"
            + " server's own gets 403. * allows every origin, and only with --auth-token.")
    List<String> allowOrigins = new ArrayList<>();

    @Option(names = "--grace-seconds", paramLabel = "N", description = "On SIGINT or SIGTERM, how long running runs may go"
            + " on before they are cancelled (default 10).")
    int graceSeconds = 10;

    @Option(names = "--max-request-bytes", paramLabel = "N", description = "The largest request body (default 1048576);"
            + " larger ones get 413.")
    long maxRequestBytes = 1024 * 1024;

    @Option(names = "--max-runs", paramLabel = "N", description = "The most runs at once (default 32); more get 429.")
    int maxRuns = 32;

    @Option(names = "--a2a", description = "Also serve the agent over A2A 1.0: its card at"
            + " /.well-known/agent-card.json, JSON-RPC at POST /a2a/jsonrpc, HTTP+JSON under /a2a/rest; a run is a task,"
            + " its contextId the session; tasks kept in the session store.")
    boolean a2a;

    @Mixin
    TemporalOptions temporal;

    @Option(names = "--mcp", description = "Also offer agents as MCP tools at POST /mcp (Streamable HTTP): each model"
            + " agent of the config file's \"agents\" (or, when it has none, this command line's agent, as the tool"
            + " bellows), named after it, input {\"task\": string}, result its answer.")
    boolean mcp;

    /** Traces and metrics, when an OpenTelemetry exporter is configured (cli.md "Traces and metrics"). */
    private Telemetry telemetry = Telemetry.OFF;

    @Override
    public Integer call() {
        Settings settings = null;
        RemoteAgentConfig remote;
        SessionStoreLocation location;
        StreamOptions streamOptions;
        Provider chosen = null;
        String token;
        McpClientOptions client = McpClientOptions.DEFAULTS;
        try {
            if (options.session != null) {
                throw new UsageException("--session: bellows serve keeps one session per thread (the AG-UI threadId);"
                        + " leave --session out");
            }
            checkLimits();
            if (temporal.given()) {
                if (!a2a) {
                    throw new UsageException("--temporal: only with --a2a, whose tasks are then durable runs (the other"
                            + " endpoints run in this process)");
                }
                temporal.check();
            }
            // The store options mean "where threads are kept" here, with no --session: resolved apart.
            String storeFlag = options.sessionStore;
            String dataDirFlag = options.dataDir;
            options.sessionStore = null;
            options.dataDir = null;
            // --agent NAME of "a2a": the remote agent is served itself, with no model of this command's
            remote = options.remoteAgent(root.host);
            if (remote != null && (mcp || a2a)) {
                throw new UsageException("--agent " + remote.name() + ": a remote A2A agent is served over AG-UI and"
                        + " chat completions only; leave " + (mcp ? "--mcp" : "--a2a") + " out");
            }
            if (remote == null) {
                settings = options.resolve(root.host, null, null, false);
            }
            if (mcp && settings.configuredAgent() != null) {
                throw new UsageException("--agent " + settings.configuredAgent().name() + ": with --mcp every model"
                        + " agent of the config file is offered; leave --agent out");
            }
            location = SessionStoreLocation.resolve(root.host, storeFlag, dataDirFlag,
                    ConfigFile.locate(root.host, options.config));
            token = authToken != null ? authToken : root.host.envValue(TOKEN_ENV);
            if (token != null && token.isBlank()) {
                throw new UsageException("--auth-token: empty; give a token, or leave the option out on a loopback host");
            }
            if (token == null && allowOrigins.stream().anyMatch(origin -> origin.strip().equals("*"))) {
                throw new UsageException("--allow-origin *: every web page could run the agent with no token;"
                        + " name the origins, or give --auth-token TOKEN (or " + TOKEN_ENV + ")");
            }
            if (token == null && !loopback(host)) {
                throw new UsageException("--host " + host + ": not a loopback address, so anyone who reaches it could"
                        + " use the agent: give --auth-token TOKEN (or " + TOKEN_ENV + ")");
            }
            if (remote != null) {
                streamOptions = null;
            } else {
            streamOptions = DialectOption.streamOptions(options.dialect, settings.model());
            // Nobody sits at a server's terminal: a server that needs a login says so (bellows mcp
            // login), and servers' questions are declined.
            client = settings.mcpServers().isEmpty() ? McpClientOptions.DEFAULTS
                    : McpSetup.clientOptions(root, spec.qualifiedName(), dataDirFlag, McpSetup.browser(root.host), false,
                            ElicitationHandler.DECLINE);
            chosen = ModelOptions.provider(settings);
            }
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
        // Closed last: what the server's spans and metrics hold is exported once everything has ended.
        try (Telemetry started = telemetry = Telemetry.start(root.host, root.stderr);
             Provider closing = chosen) {
            if (remote != null) {
                return serveRemote(remote, location, token);
            }
            Settings resolved = settings;
            return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr,
                    resolved.apiKey(), telemetry.mcp(client), registry -> serve(resolved, closing, streamOptions, registry, location, token));
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
    }

    private void checkLimits() throws UsageException {
        if (host.isBlank()) {
            throw new UsageException("--host: empty; give the address to listen on (127.0.0.1, the default, or"
                    + " 0.0.0.0 for every interface with --auth-token)");
        }
        if (port < 0 || port > 65535) {
            throw new UsageException("--port: must be 0 (a free port) to 65535");
        }
        if (graceSeconds < 0) {
            throw new UsageException("--grace-seconds: must be at least 0");
        }
        if (maxRequestBytes < 1) {
            throw new UsageException("--max-request-bytes: must be at least 1");
        }
        if (maxRuns < 1) {
            throw new UsageException("--max-runs: must be at least 1");
        }
    }

    private static boolean loopback(String host) throws UsageException {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            throw new UsageException("--host " + host + ": unknown host");
        }
    }

    /** The host listened on, answered as a Host besides loopback ones: none when it is every interface. */
    private List<String> boundHost() {
        String bare = host.strip();
        return List.of("0.0.0.0", "::", "[::]").contains(bare) ? List.of() : List.of(bare);
    }

    /** The served agent's builder, with the command line's settings (each --mcp agent's too, before its own). */
    private DefaultAgent.Builder agentBuilder(Settings settings, Provider provider, StreamOptions streamOptions,
                                              ToolRegistry registry) {
        DefaultAgent.Builder builder = DefaultAgent.builder();
        if (settings.answerSchema() != null) {
            builder.answerSchema(settings.answerSchema());
        }
        builder = telemetry.instrument(builder)
                .toolMode(settings.toolMode())
                .provider(provider)
                .model(settings.model())
                .streamOptions(streamOptions)
                .instructions(settings.system())
                .toolRegistry(registry)
                .maxIterations(settings.maxIterations())
                .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                .retryPolicy(RetryPolicy.defaults().withMaxRetries(settings.maxRetries()));
        // A call that needs approval ends its run with an AG-UI interrupt; the next run answers it.
        for (String pattern : settings.approve()) {
            builder.requireApproval(pattern);
        }
        return builder;
    }

    private int serve(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
                      SessionStoreLocation location, String token) throws UsageException {
        DefaultAgent.Builder builder = agentBuilder(settings, provider, streamOptions, registry);
        // --agent NAME: an agent of the config file, its sub-agents streamed over AG-UI as they work
        try (AgentTree tree = new AgentTree(settings, provider, streamOptions, registry, root.host::envValue).traced(telemetry)) {
            if (settings.configuredAgent() != null) {
                tree.configure(builder, settings.configuredAgent());
            }
            DefaultAgent agent = builder.build();
            McpAgents offered = !mcp ? null : McpAgents.of(settings, provider, streamOptions, registry,
                    () -> agentBuilder(settings, provider, streamOptions, registry), agent, description(settings, registry),
                    maxRequestBytes, root.host::envValue, telemetry);
            return serve(settings, agent, offered, registry, location, token);
        }
    }

    /**
     * Serves the remote agent {@code config} names over AG-UI: each thread one remote
     * conversation, a task that asks for input the run's interrupt, answered in the thread's
     * next run.
     */
    private int serveRemote(RemoteAgentConfig config, SessionStoreLocation location, String token)
            throws UsageException {
        // the interrupting copy makes (and closes) its own client; the one it is made from makes none
        try (RemoteAgent agent = RemoteAgentRun.agent(root, config, List.of()).interrupting()) {
            return serve(null, agent, null, null, location, token);
        }
    }

    /** Serves {@code agent}; {@code settings} null for a remote agent, which has no model of this command's. */
    private int serve(Settings settings, dev.bellows.agent.Agent agent, McpAgents offered, ToolRegistry registry,
                      SessionStoreLocation location, String token) throws UsageException {
        SessionStore store;
        try {
            store = location.open();
        } catch (SessionStoreException e) {
            if (offered != null) {
                offered.close();
            }
            throw new UsageException(location.source() + ": " + location.explain(e));
        }
        try (store; offered) {
            AgentServer.Builder server = AgentServer.builder(agent)
                    .sessionStore(store)
                    .maxRequestBytes(maxRequestBytes)
                    .maxRuns(maxRuns)
                    .authToken(token)
                    .modelName(settings != null ? settings.model() : agent.toString());
            if (settings != null) {
                server.memory(memoryStore -> RunCommand.memory(settings, memoryStore));
            }
            try {
                server.allowHosts(boundHost());
                server.allowHosts(allowHosts);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--allow-host: " + e.getMessage());
            }
            try {
                server.allowOrigins(allowOrigins);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--allow-origin: " + e.getMessage());
            }
            if (settings != null && settings.apiKey() != null) {
                server.secrets(List.of(settings.apiKey().reveal()));
            }
            A2aServer a2aServer = null;
            if (temporal.given()) {
                // the tasks are durable runs on the task queue's workers; this process starts and follows them
                durableClient = temporal.connect(root.host, line -> {
                    root.stderr.println(spec.qualifiedName() + ": " + line);
                    root.stderr.flush();
                });
            }
            if (a2a) {
                String name = settings.configuredAgent() != null ? settings.configuredAgent().name() : "bellows";
                dev.bellows.agent.Agent runs = durableClient == null ? agent : new DurableTasks(
                        dev.bellows.temporal.DurableAgent.builder(durableClient).taskQueue(temporal.taskQueue()).build(),
                        durableClient);
                a2aServer = A2aServer.builder(AgentCards.of(name, description(settings, registry), agent, token != null),
                                BellowsExecutor.of(runs, store, memoryStore -> RunCommand.memory(settings, memoryStore)))
                        .taskStore(new SessionTaskStore(store))
                        .pushNotifications(true)
                        .maxRequestBytes(maxRequestBytes)
                        .build();
                server.mount(a2aServer);
            }
            if (offered != null) {
                server.mount(offered.endpoint());
            }
            A2aServer a2aStopping = a2aServer;
            AgentServer handler = server.build();
            JettyAgentServer http;
            try {
                http = JettyAgentServer.start(handler, host, port);
            } catch (IOException e) {
                root.stderr.println(spec.qualifiedName() + ": cannot listen on " + host + ":" + port + ": "
                        + BellowsCommand.oneLine(e.getMessage()));
                root.stderr.flush();
                return 1;
            }
            try (http) {
                CountDownLatch stop = new CountDownLatch(1);
                try (AutoCloseable interrupt = root.host.interrupts().onInterrupt(stop::countDown);
                     AutoCloseable terminate = Terminate.on(stop::countDown)) {
                    // which model and endpoint answer: a server started without a key or base URL
                    // would otherwise talk to Ollama's default address without a word
                    root.stderr.println(spec.qualifiedName() + ": " + (settings != null ? ModelOptions.endpoint(settings)
                            : "the remote A2A agent " + agent));
                    root.stderr.flush();
                    root.stdout.write(("listening on " + http.uri() + "\n").getBytes(StandardCharsets.UTF_8));
                    root.stdout.flush();
                    stop.await();
                    root.stderr.println(spec.qualifiedName() + ": stopping: no new runs; "
                            + (handler.runningRuns() == 0 ? "none is running"
                            : handler.runningRuns() + " running, cancelled after " + graceSeconds + " s"));
                    root.stderr.flush();
                    handler.shutdown(Duration.ofSeconds(graceSeconds));
                    if (a2aStopping != null) {
                        a2aStopping.shutdown(Duration.ofSeconds(graceSeconds));
                    }
                    if (offered != null) {
                        offered.endpoint().shutdown(Duration.ofSeconds(graceSeconds));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    handler.shutdown(Duration.ZERO);
                    if (a2aStopping != null) {
                        a2aStopping.shutdown(Duration.ZERO);
                    }
                } catch (Exception e) {
                    root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(String.valueOf(e)));
                    root.stderr.flush();
                    handler.shutdown(Duration.ZERO);
                    return 1;
                }
            }
            return 0;
        } finally {
            if (durableClient != null) {
                durableClient.getWorkflowServiceStubs().shutdown();
            }
        }
    }

    /** The Temporal client of --temporal, once connected; null without it. */
    private io.temporal.client.WorkflowClient durableClient;

    /** What the agent card says the agent is: its instructions' first line, else its model and tools. */
    private static String description(Settings settings, ToolRegistry registry) {
        String system = settings.system();
        if (system != null && !system.isBlank()) {
            String first = system.strip().lines().findFirst().orElse("");
            return first.length() > 300 ? first.substring(0, 300) : first;
        }
        List<String> names = registry.tools().stream().map(tool -> tool.tool().name()).toList();
        return "A Bellows agent on " + settings.model() + (names.isEmpty() ? "" : ", with the tools " + String.join(", ", names));
    }

    /** SIGTERM, where the JVM lets a program handle it: stops the server as SIGINT does. */
    private static final class Terminate {
        static AutoCloseable on(Runnable action) {
            try {
                sun.misc.Signal signal = new sun.misc.Signal("TERM");
                sun.misc.SignalHandler previous = sun.misc.Signal.handle(signal, received -> action.run());
                return () -> sun.misc.Signal.handle(signal, previous);
            } catch (LinkageError | IllegalArgumentException e) {
                return () -> { };       // no signal API: the JVM's own handling (exit 143) stays
            }
        }
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
