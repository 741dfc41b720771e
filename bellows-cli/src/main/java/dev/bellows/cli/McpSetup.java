package dev.bellows.cli;

import dev.bellows.mcp.McpListener;
import dev.bellows.mcp.McpServerConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    /**
     * Tells the user, one line on standard error each, when a server stops, comes back or is
     * not restarted.
     *
     * @param redact applied to every line (keeps an API key out)
     */
    static McpListener reporter(String command, PrintWriter stderr, UnaryOperator<String> redact) {
        return new McpListener() {
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
