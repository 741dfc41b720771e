package dev.bellows.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Run in its own JVM by {@link StdioThreadsTest}, with one carrier thread for virtual threads
 * and no spare: connects a {@link StdioTransport} to a server that never writes, then starts a
 * virtual thread and prints whether it ran.
 */
public final class QuietServerProbe {

    private QuietServerProbe() {
    }

    public static void main(String[] args) throws Exception {
        McpServerConfig.Stdio quiet = (McpServerConfig.Stdio) McpServerConfig.stdio("quiet", "sleep").args("600").build();
        StdioTransport transport = new StdioTransport(quiet, McpJsonDefaults.getMapper(), Map.of());
        transport.connect(message -> Mono.empty()).block();
        Thread.sleep(500);                  // the transport's threads are in their reads by now
        Thread other = Thread.ofVirtual().start(() -> { });
        boolean ran = other.join(java.time.Duration.ofSeconds(20));
        System.out.println(ran ? "virtual threads run" : "virtual threads starved");
        transport.process().ifPresent(ProcessHandle::destroyForcibly);
        System.exit(0);
    }
}
