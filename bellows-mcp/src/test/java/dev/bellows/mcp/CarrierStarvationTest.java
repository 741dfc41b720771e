package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No MCP server, silent or flooding, can stop Bellows' timers or its shutdown, however few CPUs.
 *
 * <p>The fault this guards against: the readers of a stdio server's stdout and stderr were
 * virtual threads. A blocking read on a child's pipe holds the carrier thread under it; the
 * virtual-thread scheduler makes up for it with a spare carrier, but that spare retires after
 * 30 s idle. From then on, with as many blocked pipes as CPUs (one silent server on 2 CPUs:
 * two pipes), no virtual thread runs again, so a 60 s startup timeout or a 120 s call
 * timeout never fired, and {@code bellows chat} idle for a minute hung at the next tool call.
 *
 * <p>Waiting for that retirement would make the test take minutes. Instead the child JVM runs
 * on 2 CPUs with a scheduler that has no spare carrier at all
 * ({@code jdk.virtualThreadScheduler.maxPoolSize=2}): the state the default one reaches 30 s
 * after the pipes blocked, from the first second. Before the fix the child hung there every
 * time; the timeouts themselves are short only because no 30 s grace is left to outwait.
 */
class CarrierStarvationTest {

    /** A guard against a hung child, not a measure of speed. */
    private static final long GIVE_UP_SECONDS = 180;

    @Test
    void silent_and_flooding_servers_and_a_hanging_tool_cannot_starve_a_scheduler_without_spare_carriers(
            @TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:ActiveProcessorCount=2",
                "-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=2",
                "-cp", System.getProperty("java.class.path"),
                StarvedSchedulerProbe.class.getName(),
                "4", // silent servers: eight blocked pipes, plus the flooding one's two and the scripted one's two
                "1")); // startup and call timeout, seconds: all of them are to fire, so any length proves it
        Process child = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = child.waitFor(GIVE_UP_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ended).as("the child ended on its own; it printed: %s%s", output,
                Files.readString(err, StandardCharsets.UTF_8)).isTrue();
        assertThat(child.exitValue()).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
        assertThat(output)
                .contains("failed silent0: it did not start and list its tools within 1 s (startup timeout)")
                .contains("failed silent3: it did not start and list its tools within 1 s (startup timeout)")
                .contains("failed flooding: it did not start and list its tools within 1 s (startup timeout); stderr: a flood")
                .contains("did not answer the call within 1 s (call timeout); the call was cancelled")
                .endsWith("closed\n");
    }
}
