package dev.bellows.cli;

import dev.bellows.mcp.McpListener;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.mcp.McpServerStatus;
import dev.bellows.mcp.McpServers;
import dev.bellows.provider.ApiKey;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.io.PrintWriter;
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

    private McpSetup() {
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
                           ApiKey key, WithTools body) throws UsageException {
        if (configs.isEmpty()) {
            return body.run(new ToolRegistry());
        }
        UnaryOperator<String> redact = line -> key == null ? line : key.redact(line);
        try (McpServers servers = McpServers.start(configs, host.env(), reporter(command, stderr, redact));
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
