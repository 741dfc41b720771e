package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.format.Observation;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.mcp.McpClientOptions;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.mcp.McpServerStatus;
import dev.bellows.mcp.McpServers;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows tools}: every tool the agent of {@code bellows run} would see, the built-ins
 * and those of the configured MCP servers, with server, description and JSON Schema; servers
 * that failed to start are listed with their error. {@code --call SERVER/TOOL --args JSON}
 * runs one tool through the same registry, argument checking and ToolChain as the agent, and
 * prints the observation exactly as the model would receive it: the way to try a server
 * before giving it to an agent.
 */
@Command(name = "tools",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Lists the tools the agent would see (built-ins and MCP servers), or runs one.",
                "",
                "The list has the built-ins (server local) and the tools of the MCP servers, with their JSON"
                        + " Schemas, and the servers that failed with their error. With --call, runs one tool by"
                        + " hand, through the agent's argument checking, and prints what the model would receive.",
                "",
                "MCP servers come from --mcp-config, else from the config file (\"mcpServers\", \"mcp_config\")"
                        + " as for bellows run."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:every MCP server started (list); the tool call succeeded (--call)",
                "1:some MCP server failed to start (the rest are still listed); the tool call failed (--call)",
                "2:usage or configuration error",
                "130:--call was cancelled (Ctrl-C)"})
final class ToolsCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = Jackson.JSON;

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--mcp-config", paramLabel = "FILE",
            description = "MCP servers in the common {\"mcpServers\": {...}} format.")
    String mcpConfig;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Settings as for bellows run; its MCP servers are used when --mcp-config is not given."
                    + " Env BELLOWS_CONFIG; default bellows.json in the working directory if present.")
    String config;

    @Option(names = "--output", paramLabel = "text|json", description = "text (default) or one JSON document.")
    String output;

    @Option(names = "--call", paramLabel = "SERVER/TOOL",
            description = "Runs this tool (e.g. everything/echo, local/task_completion) instead of listing.")
    String call;

    @Option(names = "--args", paramLabel = "JSON", description = "The tool's arguments as a JSON object (default {}).")
    String args;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Where MCP servers' tokens are kept (mcp-oauth.json), as for bellows run. Env BELLOWS_DATA_DIR.")
    String dataDir;

    @Option(names = "--elicitation", paramLabel = "ask|defaults|decline",
            description = "How an MCP server's questions are answered: ask (default on a terminal), defaults,"
                    + " decline (default without a terminal). Env " + Elicitations.ENV + ".")
    String elicitation;

    private McpClientOptions clientOptions;

    @Override
    public Integer call() {
        boolean json;
        List<McpServerConfig> servers;
        ToolCall toolCall = null;
        try {
            String mode = output == null ? "text" : output;
            if (!mode.equals("text") && !mode.equals("json")) {
                throw new UsageException("--output: unknown output (text or json)");
            }
            json = mode.equals("json");
            if (args != null && call == null) {
                throw new UsageException("--args needs --call SERVER/TOOL");
            }
            if (call != null) {
                toolCall = toolCall(call, args);
            }
            ConfigFile file = ConfigFile.locate(root.host, config);
            servers = McpSetup.servers(root.host, file, mcpConfig);
            clientOptions = servers.isEmpty() ? McpClientOptions.DEFAULTS
                    : McpSetup.clientOptions(root, spec.qualifiedName(), dataDir, McpSetup.browser(root.host), false,
                            McpSetup.elicitation(root, elicitation, file));
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
        if (toolCall != null) {
            String server = toolCall.serverName();
            if (!server.equals(ToolCall.LOCAL_SERVER) && servers.stream().noneMatch(s -> s.name().equals(server))) {
                return usage("--call: no MCP server named \"" + server + "\" is configured (servers: "
                        + (servers.isEmpty() ? "none; give --mcp-config FILE"
                                : String.join(", ", servers.stream().map(McpServerConfig::name).toList()))
                        + "; built-ins are on server local)");
            }
            // Only the server called is started: the others have nothing to do with it.
            return callTool(toolCall, servers.stream().filter(s -> s.name().equals(server)).toList());
        }
        return list(servers, json);
    }

    static ToolCall toolCall(String call, String args) throws UsageException {
        int slash = call.indexOf('/');
        if (slash <= 0 || slash == call.length() - 1) {
            throw new UsageException("--call: expected SERVER/TOOL, like everything/echo or local/task_completion");
        }
        JsonNode arguments;
        try {
            arguments = args == null ? JSON.createObjectNode() : JSON.readTree(args);
        } catch (JacksonException e) {
            // Not Jackson's message: it quotes the text, which may hold a secret.
            var location = e.getLocation();
            throw new UsageException("--args: invalid JSON" + (location == null ? ""
                    : " at column " + location.getColumnNr()) + "; give a JSON object like '{\"message\": \"hi\"}'");
        }
        if (arguments == null || !arguments.isObject()) {
            throw new UsageException("--args: expected a JSON object like '{\"message\": \"hi\"}'");
        }
        return new ToolCall(call.substring(0, slash), call.substring(slash + 1), (ObjectNode) arguments);
    }

    private int list(List<McpServerConfig> servers, boolean json) {
        String command = spec.qualifiedName();
        try (McpServers started = McpServers.start(servers, root.host.env(),
                McpSetup.reporter(command, root.stderr, dev.bellows.mcp.auth.OAuthSecret::redact), clientOptions);
             ToolRegistry registry = registry(started)) {
            List<SourceFailure> failures = registry.sourceFailures();
            String text = json ? json(registry, servers, failures, started.statuses()) : text(registry, failures);
            started.close(); // all at once, before the registry would close them one by one
            if (!write(text)) {
                return 1;
            }
            for (SourceFailure failure : failures) {
                root.stderr.println(command + ": MCP server \"" + failure.serverName() + "\" failed to start: "
                        + dev.bellows.mcp.auth.OAuthSecret.redact(BellowsCommand.oneLine(failure.reason())));
            }
            root.stderr.flush();
            return failures.isEmpty() ? 0 : 1;
        }
    }

    private static ToolRegistry registry(McpServers servers) {
        ToolRegistry registry = new ToolRegistry();
        for (Tool tool : BuiltinTools.all()) {
            registry.register(tool);
        }
        return servers.addTo(registry);
    }

    private int callTool(ToolCall toolCall, List<McpServerConfig> servers) {
        String command = spec.qualifiedName();
        AtomicBoolean cancelled = new AtomicBoolean();
        try (McpServers started = McpServers.start(servers, root.host.env(),
                McpSetup.reporter(command, root.stderr, dev.bellows.mcp.auth.OAuthSecret::redact), clientOptions);
             ToolRegistry registry = registry(started);
             AutoCloseable interrupt = root.host.interrupts().onInterrupt(() -> cancelled.set(true))) {
            if (!awaitSettled(started, registry, toolCall.serverName(), cancelled)) {
                return 130;
            }
            // The default agent's ToolChain and observation format: what the model reads.
            ToolChainResult result = new ToolChain(registry).execute(List.of(toolCall), cancelled::get);
            started.close(); // stop the server before printing: the output is complete either way
            if (!write(Observation.format(new XmlFormat(), result.outcomes()) + "\n")) {
                return 1;
            }
            if (cancelled.get()) {
                return 130;
            }
            return result.outcomes().getFirst() instanceof ToolCallOutcome.Succeeded ? 0 : 1;
        } catch (Exception e) { // closing the interrupt handler
            root.stderr.println(command + ": " + BellowsCommand.oneLine(String.valueOf(e.getMessage())));
            root.stderr.flush();
            return 1;
        }
    }

    /**
     * Gives a server whose first start failed its retries before the call (the user asked for
     * this server), then brings the registry up to date; false when Ctrl-C came first.
     */
    private static boolean awaitSettled(McpServers started, ToolRegistry registry, String server, AtomicBoolean cancelled)
            throws InterruptedException, java.util.concurrent.ExecutionException {
        CompletableFuture<Void> settled = CompletableFuture.allOf(started.sources().stream()
                .map(source -> source.settled()).toArray(CompletableFuture[]::new));
        while (!settled.isDone()) {
            if (cancelled.get()) {
                return false;
            }
            try {
                settled.get(100, TimeUnit.MILLISECONDS); // looks at Ctrl-C in between
            } catch (TimeoutException e) {
                // not yet
            }
        }
        if (!server.equals(ToolCall.LOCAL_SERVER)) {
            registry.refresh(server);
        }
        return true;
    }

    private static String text(ToolRegistry registry, List<SourceFailure> failures) {
        StringBuilder out = new StringBuilder();
        for (RegisteredTool tool : registry.tools()) {
            out.append(tool.serverName()).append('/').append(tool.toolName()).append('\n');
            String description = tool.tool().description();
            if (description != null && !description.isBlank()) {
                for (String line : description.strip().split("\\R")) {
                    out.append("    ").append(line).append('\n');
                }
            }
            out.append("    schema: ").append(tool.tool().inputSchema()).append("\n\n");
        }
        if (!failures.isEmpty()) {
            out.append("MCP servers that failed to start:\n");
            for (SourceFailure failure : failures) {
                out.append("    ").append(failure.serverName()).append(": ")
                        .append(BellowsCommand.oneLine(failure.reason())).append('\n');
            }
        }
        return out.toString();
    }

    private static String json(ToolRegistry registry, List<McpServerConfig> servers, List<SourceFailure> failures,
                               Map<String, McpServerStatus> statuses) {
        ObjectNode document = JSON.createObjectNode();
        ArrayNode tools = document.putArray("tools");
        for (RegisteredTool tool : registry.tools()) {
            ObjectNode entry = tools.addObject();
            entry.put("server", tool.serverName());
            entry.put("name", tool.toolName());
            entry.put("description", tool.tool().description());
            entry.set("input_schema", tool.tool().inputSchema());
        }
        ArrayNode serverList = document.putArray("servers");
        for (McpServerConfig server : servers) {
            ObjectNode entry = serverList.addObject();
            entry.put("name", server.name());
            entry.put("transport", server instanceof McpServerConfig.Stdio ? "stdio" : "streamable-http");
            SourceFailure failure = failures.stream().filter(f -> f.serverName().equals(server.name()))
                    .findFirst().orElse(null);
            McpServerStatus status = statuses.get(server.name());
            entry.put("status", failure == null ? "started" : switch (status) {
                case McpServerStatus.Retrying r -> "retrying";
                case McpServerStatus.Starting s -> "starting";
                default -> "failed";
            });
            if (failure != null) {
                entry.put("error", failure.reason());
                if (status instanceof McpServerStatus.Retrying retrying) {
                    entry.put("failed_attempts", retrying.failedAttempts());
                    entry.put("max_attempts", retrying.maxAttempts());
                } else if (status instanceof McpServerStatus.Failed failed) {
                    entry.put("failed_attempts", failed.attempts());
                }
            } else {
                entry.put("tools", registry.tools().stream().filter(t -> t.serverName().equals(server.name())).count());
            }
        }
        return document.toPrettyString() + "\n";
    }

    private boolean write(String text) {
        try {
            root.stdout.write(Shown.text(text).getBytes(StandardCharsets.UTF_8)); // servers' names, descriptions, results
            root.stdout.flush();
            return true;
        } catch (IOException e) {
            root.stderr.println(spec.qualifiedName() + ": cannot write to standard output: "
                    + BellowsCommand.oneLine(e.getMessage()));
            root.stderr.flush();
            return false;
        }
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
        root.stderr.flush();
        return 2;
    }
}
