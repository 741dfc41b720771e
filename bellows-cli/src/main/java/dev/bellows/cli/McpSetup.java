package dev.bellows.cli;

import dev.bellows.mcp.ElicitationHandler;
import dev.bellows.mcp.McpClientOptions;
import dev.bellows.mcp.McpListener;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.mcp.McpServerStatus;
import dev.bellows.mcp.McpServers;
import dev.bellows.mcp.auth.OAuthOptions;
import dev.bellows.mcp.auth.OAuthSecret;
import dev.bellows.mcp.auth.TokenStore;
import dev.bellows.provider.ApiKey;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Which MCP servers a command uses, and how their troubles are told: {@code --mcp-config FILE}
 * when given; otherwise the config file's {@code mcpServers} together with the servers of its
 * {@code "mcp_config"} file.
 */
final class McpSetup {

    /** The tokens' file in the data directory. */
    static final String TOKEN_FILE = "mcp-oauth.json";
    /** How the authorization URL is opened: system, none or fetch. */
    static final String BROWSER_ENV = "BELLOWS_OAUTH_BROWSER";

    private McpSetup() {
    }

    /**
     * What the command offers the MCP servers it starts: tokens in {@code mcp-oauth.json} in the
     * data directory; the authorization-code flow only with a person at the terminal (standard
     * input and error) or {@code BELLOWS_OAUTH_BROWSER=fetch}, else "needs login: run bellows
     * mcp login NAME"; the lines for the person on standard error.
     *
     * @param login whether a person is there by definition (bellows mcp login)
     */
    static McpClientOptions clientOptions(BellowsCommand root, String command, String dataDirFlag,
                                          OAuthOptions.Browser browser, boolean login, ElicitationHandler elicitation)
            throws UsageException {
        Path directory = DataDirectory.resolve(root.host, dataDirFlag);
        PrintWriter stderr = root.stderr;
        OAuthOptions oauth = new OAuthOptions(TokenStore.file(directory.resolve(TOKEN_FILE)), browser,
                login ? () -> true : () -> personAtTerminal(root),
                line -> {
                    stderr.println(command + ": " + OAuthSecret.redact(BellowsCommand.oneLine(line)));
                    stderr.flush();
                },
                name -> "needs login: run bellows mcp login " + name);
        return new McpClientOptions(oauth, elicitation);
    }

    /** {@code BELLOWS_OAUTH_BROWSER}: system (default), none or fetch. */
    static OAuthOptions.Browser browser(Host host) throws UsageException {
        String value = host.envValue(BROWSER_ENV);
        if (value == null) {
            return OAuthOptions.Browser.SYSTEM;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "system" -> OAuthOptions.Browser.SYSTEM;
            case "none" -> OAuthOptions.Browser.NONE;
            case "fetch" -> OAuthOptions.Browser.FETCH;
            default -> throw new UsageException(BROWSER_ENV + ": unknown value (system, none or fetch)");
        };
    }

    /** Whether a person is at the terminal: standard input and standard error are both terminals. */
    static boolean personAtTerminal(BellowsCommand root) {
        return root.stdin == System.in && isTerminal(0) && isTerminal(2);
    }

    /** The handler for {@code --elicitation} on run and tools: ask on standard input and error. */
    static ElicitationHandler elicitation(BellowsCommand root, String flag, ConfigFile file) throws UsageException {
        return elicitation(root, flag, file, () -> { });
    }

    /** As {@link #elicitation(BellowsCommand, String, ConfigFile)}; {@code quiet} stops the run's spinner first. */
    static ElicitationHandler elicitation(BellowsCommand root, String flag, ConfigFile file, Runnable quiet)
            throws UsageException {
        Elicitations.Mode mode = Elicitations.mode(root.host, flag, file, personAtTerminal(root));
        Elicitations.Lines lines = mode == Elicitations.Mode.ASK ? Elicitations.plain(root, quiet) : null;
        return Elicitations.handler(mode, () -> lines, root.stderr);
    }

    /** As {@code test -t FD}: Java alone can only tell whether input and output both are terminals. */
    private static boolean isTerminal(int fd) {
        try {
            return new ProcessBuilder("test", "-t", Integer.toString(fd)).inheritIO().start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static List<McpServerConfig> servers(Host host, ConfigFile file, String flag) throws UsageException {
        if (flag != null) {
            return ConfigFile.readMcpConfig(host.workingDirectory().resolve(flag), "--mcp-config " + flag);
        }
        List<McpServerConfig> all = new ArrayList<>(file.servers());
        String fromFile = file.string("mcp_config");
        if (fromFile != null) {
            String label = file.source("mcp_config") + " " + fromFile;
            List<McpServerConfig> more = ConfigFile.readMcpConfig(file.directory.resolve(fromFile), label);
            Set<String> names = new HashSet<>();
            all.forEach(server -> names.add(server.name()));
            for (McpServerConfig server : more) {
                if (!names.add(server.name())) {
                    throw new UsageException(label + ": MCP server \"" + server.name() + "\" is also in "
                            + file.source(ConfigFile.MCP_SERVERS) + "; rename one");
                }
            }
            all.addAll(more);
        }
        return List.copyOf(all);
    }

    /**
     * Why an approved call cannot run here, and what to add: its server (for {@code run} or
     * {@code chat}, the command the user gives again).
     */
    static String missingTool(dev.bellows.agent.MissingToolException e, String command) {
        return "call " + e.callId() + " needs tool " + e.serverName() + "/" + e.toolName() + ", which this " + command
                + " does not have: add the MCP server \"" + e.serverName() + "\" (--mcp-config FILE naming it, or"
                + " \"mcpServers\" in the config file), or deny the call";
    }

    /** What runs with the tools of the MCP servers: an agent run, a chat. */
    interface WithTools {
        int run(ToolRegistry registry) throws UsageException;
    }

    /**
     * Starts the MCP servers (in parallel), tells the user once about those that failed, runs
     * {@code body} with the others' tools, and stops every server and its processes when it
     * ends, however it ends (Ctrl-C included). Without servers, {@code body} gets an empty
     * registry.
     */
    static int withServers(List<McpServerConfig> configs, Host host, String command, PrintWriter stderr,
                           ApiKey key, McpClientOptions options, WithTools body) throws UsageException {
        if (configs.isEmpty()) {
            return body.run(new ToolRegistry());
        }
        UnaryOperator<String> redact = line -> OAuthSecret.redact(key == null ? line : key.redact(line));
        try (McpServers servers = McpServers.start(configs, host.env(), reporter(command, stderr, redact), options);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            for (SourceFailure failure : registry.sourceFailures()) {
                boolean retrying = !(servers.statuses().get(failure.serverName()) instanceof McpServerStatus.Failed);
                stderr.println(redact.apply(command + ": MCP server \"" + failure.serverName() + "\" is unavailable: "
                        + BellowsCommand.oneLine(failure.reason()) + "; running without its tools"
                        + (retrying ? " until it starts" : "")));
            }
            stderr.flush();
            try {
                return body.run(registry);
            } finally {
                servers.close(); // all at once, before the registry would close them one by one
            }
        }
    }

    /**
     * Tells the user, one line on standard error each, when a server stops, comes back or is
     * not restarted, and when a server whose first start failed (reported when the servers
     * started) comes up or is given up on after its retries.
     *
     * @param redact applied to every line (keeps an API key out)
     */
    static McpListener reporter(String command, PrintWriter stderr, UnaryOperator<String> redact) {
        Set<String> retrying = ConcurrentHashMap.newKeySet();
        return new McpListener() {
            @Override
            public void statusChanged(String server, McpServerStatus status) {
                switch (status) {
                    case McpServerStatus.Retrying r -> retrying.add(server);
                    case McpServerStatus.Up up when retrying.remove(server) ->
                            print("MCP server \"" + server + "\" is up; its tools are available now");
                    case McpServerStatus.Failed failed when retrying.remove(server) ->
                            print("MCP server \"" + server + "\" is given up on: " + failed.describe());
                    default -> {
                    }
                }
            }

            @Override
            public void serverProblem(String server, String reason) {
                print("MCP server \"" + server + "\" " + reason);
            }

            @Override
            public void serverRestarted(String server) {
                print("MCP server \"" + server + "\" was restarted");
            }

            private void print(String line) {
                // One println: PrintWriter keeps a line whole without a lock of ours.
                stderr.println(command + ": " + redact.apply(BellowsCommand.oneLine(line)));
                stderr.flush();
            }
        };
    }
}
