package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.LogCapture;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A server that cannot start is logged at DEBUG with its reason, and so is stopping, without its env. */
class McpLoggingTest {

    @Test
    void startingFailingAndStoppingAreLoggedWithoutTheServersSecrets() throws Exception {
        String secret = "mcp-secret-token-0123456789";
        try (LogCapture logs = LogCapture.of("dev.bellows.mcp")) {
            try (McpServers servers = McpServers.start(List.of(McpServerConfig.stdio("missing", "bellows-no-such-command")
                    .env(java.util.Map.of("API_TOKEN", secret)).build()), McpListener.NONE);
                 ToolRegistry registry = servers.addTo(new ToolRegistry())) {
                assertThat(registry.sourceFailures()).hasSize(1);
            }
            assertThat(logs.text()).anyMatch(line -> line.contains("MCP server missing: starting"))
                    .anyMatch(line -> line.contains("MCP server missing: did not start: command \"bellows-no-such-command\" not found"))
                    .allMatch(line -> line.startsWith("FINE ") && !line.contains(secret));
        }
    }
}
