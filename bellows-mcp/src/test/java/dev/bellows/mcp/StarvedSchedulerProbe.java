package dev.bellows.mcp;

import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The child JVM of {@link CarrierStarvationTest}: silent and flooding servers, a tool that never
 * answers, and close, run on a virtual-thread scheduler with no spare carrier. Prints what
 * happened, one line each, and exits 0 when everything ended.
 */
public final class StarvedSchedulerProbe {

    private StarvedSchedulerProbe() {
    }

    public static void main(String[] args) throws Exception {
        int silent = Integer.parseInt(args[0]);
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[1]));
        List<McpServerConfig> configs = new ArrayList<>();
        for (int i = 0; i < silent; i++) {
            configs.add(McpServerConfig.stdio("silent" + i, "sh").args(TestServers.script("hangs.sh"))
                    .startupTimeout(timeout).build());
        }
        configs.add(McpServerConfig.stdio("flooding", "sh").args(TestServers.script("floods.sh"))
                .startupTimeout(timeout).build());
        configs.add(McpServerConfig.stdio("scripted", "node").args(TestServers.script("scripted-server.js"))
                .callTimeout(timeout).build());
        try (McpServers servers = McpServers.start(configs, McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            for (SourceFailure failure : registry.sourceFailures()) {
                System.out.println("failed " + failure.serverName() + ": " + failure.reason());
            }
            ToolChainResult waited = new ToolChain(registry)
                    .execute(List.of(ReferenceServersTest.call("scripted", "wait", Map.of())));
            System.out.println("call: " + waited.outcomes().getFirst().text().replace('\n', ' '));
        }
        System.out.println("closed");
        System.out.flush();
        System.exit(0);
    }
}
