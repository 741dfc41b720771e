package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A quiet stdio server must not take the process's virtual threads from it. A pipe read blocks
 * in the kernel and holds its carrier; the JDK lends a spare carrier only for a while (30 idle
 * seconds), so on a two-core machine a server's two readers came to hold both carriers and a
 * Temporal worker's activities never ran. The probe makes that certain and immediate: its JVM has
 * one carrier and no spare.
 */
class StdioThreadsTest {

    @Test
    void aQuietServerLeavesTheVirtualThreadSchedulerFree() throws Exception {
        Process probe = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1",
                "-cp", System.getProperty("java.class.path"), QuietServerProbe.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(probe.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("virtual threads run");
    }
}
