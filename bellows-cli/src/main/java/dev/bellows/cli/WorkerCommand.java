package dev.bellows.cli;

import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.McpClientOptions;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.temporal.DurableWorker;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows worker --temporal HOST:PORT}: a Temporal worker that carries out durable runs
 * (cli.md, "Durable runs on Temporal"). The model, its key, the MCP servers and the loop's
 * settings are this process's, resolved as {@code bellows run} resolves them; clients send
 * tasks only. Prints one line once it polls, and serves until SIGINT or SIGTERM.
 */
@Command(name = "worker",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {"Serves durable runs on Temporal: the agent loop as a workflow, each model call and tool call an"
                + " activity. The model, key, MCP servers and loop settings are this worker's; every worker of a task"
                + " queue must be configured alike. --agent NAME serves a configured agent of bellows.json: the agents"
                + " it calls run inside its durable run."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:stopped (SIGINT or SIGTERM)", "1:Temporal could not be reached", "2:usage or configuration error"})
final class WorkerCommand implements Callable<Integer> {

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Mixin
    ModelOptions options;

    @Mixin
    TemporalOptions temporal;

    @Option(names = "--heartbeat-timeout-seconds", paramLabel = "N",
            description = "How long a model or tool call may go without a heartbeat before another worker takes it over"
                    + " (default 20).")
    Integer heartbeatTimeoutSeconds;

    @Option(names = "--max-concurrent-calls", paramLabel = "N",
            description = "Model and tool calls this worker runs at once (default 200).")
    Integer maxConcurrentCalls;

    @Option(names = "--workflow-cache-size", paramLabel = "N",
            description = "Runs kept in memory between their steps (default 0: each step replays the run's history;"
                    + " raise it on a real cluster; keep 0 on Temporal's Java test server).")
    Integer workflowCacheSize;

    @Override
    public Integer call() {
        Settings settings;
        Provider provider;
        StreamOptions streamOptions;
        McpClientOptions client;
        try {
            if (!temporal.given()) {
                throw new UsageException("--temporal: required: the Temporal frontend's HOST:PORT");
            }
            temporal.check();
            if (options.session != null) {
                throw new UsageException("--session: not a worker option (a client names the session: bellows run --temporal"
                        + " HOST:PORT --session NAME TASK)");
            }
            if (heartbeatTimeoutSeconds != null && heartbeatTimeoutSeconds < 1) {
                throw new UsageException("--heartbeat-timeout-seconds: must be at least 1");
            }
            if (workflowCacheSize != null && workflowCacheSize < 0) {
                throw new UsageException("--workflow-cache-size: cannot be negative");
            }
            if (maxConcurrentCalls != null && maxConcurrentCalls < 1) {
                throw new UsageException("--max-concurrent-calls: must be at least 1");
            }
            settings = options.resolve(root.host, null, null, true);
            if (settings.configuredAgent() == null) {
                options.commandLinesAgentOnly(settings, "bellows worker");
            }
            streamOptions = DialectOption.streamOptions(options.dialect, settings.model());
            // Nobody sits at a worker's terminal: a server that needs a login says so (bellows mcp
            // login), and servers' questions are declined, as bellows serve does.
            client = settings.mcpServers().isEmpty() ? McpClientOptions.DEFAULTS
                    : McpSetup.clientOptions(root, spec.qualifiedName(), options.dataDir, McpSetup.browser(root.host), false,
                            ElicitationHandler.DECLINE);
            provider = ModelOptions.provider(settings);
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
        // Closed last: the activities in flight end their spans before the last export.
        try (Telemetry telemetry = Telemetry.start(root.host, root.stderr);
             Provider closing = provider) {
            return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr,
                    settings.apiKey(), telemetry.mcp(client),
                    registry -> serve(settings, closing, streamOptions, registry, telemetry));
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
    }

    private int serve(Settings settings, Provider provider, StreamOptions streamOptions,
                      dev.bellows.tool.ToolRegistry registry, Telemetry telemetry) {
        WorkflowClient client;
        try {
            client = temporal.connect(root.host, line -> {
                root.stderr.println(spec.qualifiedName() + ": " + line);
                root.stderr.flush();
            });
        } catch (UsageException e) {
            return usage(e.getMessage());
        } catch (RuntimeException e) {
            return fail("cannot reach Temporal at " + temporal.address + " (tried for "
                    + temporal.patience().toSeconds() + " s): " + BellowsCommand.oneLine(e.getMessage()));
        }
        DurableWorker.Builder builder = DurableWorker.builder(client)
                .taskQueue(temporal.taskQueue())
                .provider(provider)
                .tools(registry)
                .retryPolicy(RetryPolicy.defaults().withMaxRetries(settings.maxRetries()))
                .loop(b -> {
                    b.toolMode(settings.toolMode())
                            .model(settings.model())
                            .streamOptions(streamOptions)
                            .instructions(settings.system())
                            .memory(RunCommand.memory(settings))
                            .maxIterations(settings.maxIterations())
                            .maxToolResultTokens(settings.maxToolResultTokens())
                            .maxConsecutiveErrors(settings.maxConsecutiveErrors());
                    // --approve: a run that reaches such a call waits in its workflow for a decision.
                    for (String pattern : settings.approve()) {
                        b.requireApproval(pattern);
                    }
                });
        AgentsConfig.Spec configured = settings.configuredAgent();
        if (configured != null) {
            // Its problems (a remote agent, a tool the worker lacks) are usage errors now, not a run's failure.
            try (AgentTree check = new AgentTree(settings, provider, streamOptions, registry, root.host::envValue)) {
                check.checkDurable(configured);
                check.configure(dev.bellows.agent.DefaultAgent.builder(), configured);
            } catch (UsageException e) {
                client.getWorkflowServiceStubs().shutdown();
                return usage(e.getMessage());
            }
            // Each run builds the agent and those it calls in its workflow, from the workflow's provider and tools.
            builder.agents(configured.name(), (agent, parts) -> {
                try {
                    new AgentTree(settings, parts.provider(), streamOptions, parts.tools(), name -> null)
                            .inWorkflow(parts::builder).configure(agent, configured);
                } catch (UsageException e) {
                    throw new IllegalStateException(e.getMessage(), e);     // checked above, at the start
                }
            });
        }
        telemetry.instrument(builder);
        if (heartbeatTimeoutSeconds != null) {
            builder.heartbeatTimeout(Duration.ofSeconds(heartbeatTimeoutSeconds));
        }
        if (maxConcurrentCalls != null) {
            builder.maxConcurrentCalls(maxConcurrentCalls);
        }
        if (workflowCacheSize != null) {
            builder.workflowCacheSize(workflowCacheSize);
        }
        CountDownLatch stop = new CountDownLatch(1);
        Thread hook = new Thread(stop::countDown, "bellows-worker-stop");
        try (DurableWorker worker = builder.build();
             AutoCloseable interrupt = root.host.interrupts().onInterrupt(stop::countDown)) {
            worker.start();
            Runtime.getRuntime().addShutdownHook(hook);     // SIGTERM
            root.stdout.write(("worker polling task queue " + worker.taskQueue() + " on " + temporal.address
                    + " (namespace " + temporal.namespace() + ")\n").getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            return fail("cannot write to standard output: " + BellowsCommand.oneLine(e.getMessage()));
        } catch (Exception e) {
            return fail(BellowsCommand.oneLine(e.getMessage()));
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // SIGTERM: the hook is what woke us
            }
            client.getWorkflowServiceStubs().shutdown();
        }
        return 0;
    }

    private int fail(String line) {
        root.stderr.println(spec.qualifiedName() + ": " + line);
        root.stderr.flush();
        return 1;
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
