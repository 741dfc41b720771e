package dev.bellows.mcp;

import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;

/**
 * The child JVM of {@link BoundedResultTest}: calls a tool whose result is 50 MB, with a small
 * heap, and prints what the model would read of it: its length, and its note.
 */
public final class BigResultProbe {

    private BigResultProbe() {
    }

    public static void main(String[] args) throws Exception {
        McpServerConfig config = McpServerConfig.stdio("big", "node").args(TestServers.script("big-result.js")).build();
        try (McpServers servers = McpServers.start(List.of(config), McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChainResult result = new ToolChain(registry).withResultLimit(ResultLimit.DEFAULT)
                    .execute(List.of(ReferenceServersTest.call("big", "big", Map.of())));
            String text = result.outcomes().getFirst().text();
            System.out.println("length " + text.length());
            System.out.println("starts " + text.substring(0, 40).replace('\n', ' '));
            System.out.println("note " + text.substring(text.lastIndexOf('[')).replace('\n', ' '));
            Runtime runtime = Runtime.getRuntime();
            System.out.println("heap used " + (runtime.totalMemory() - runtime.freeMemory()) / (1024 * 1024) + " MiB");
        }
        System.out.flush();
        System.exit(0);
    }
}
