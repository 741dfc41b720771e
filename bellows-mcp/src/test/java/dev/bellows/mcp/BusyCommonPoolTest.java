package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server's exit is noticed however busy the application keeps the common {@code ForkJoinPool}.
 *
 * <p>The fault this guards against: the exit was watched with {@code Process.onExit()}, which
 * the JDK completes from the common pool, and that pool has a single worker on a 2-CPU machine.
 * With that worker blocked (by the application's own {@code CompletableFuture.supplyAsync}, or
 * by an earlier exit's handler waiting for stderr), a server that quit at once was reported as
 * not starting within its startup timeout, and a crashed one was not reported at all: CI saw
 * both. Here every worker of the pool is blocked for the whole test.
 */
class BusyCommonPoolTest {

    @Test
    void exits_are_noticed_while_every_worker_of_the_common_pool_is_blocked() throws Exception {
        Set<Long> before = TestServers.descendants();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        McpListener listener = new McpListener() {
            @Override
            public void serverProblem(String server, String reason) {
                problems.add(server + ": " + reason);
            }
        };
        List<McpServerConfig> configs = List.of(
                McpServerConfig.stdio("quitter", "sh").args(TestServers.script("exits-at-once.sh"))
                        // Far longer than noticing an exit takes: the timeout is not what ends the start.
                        .startupTimeout(Duration.ofSeconds(30)).restart(RestartPolicy.NEVER)
                        .build(),
                McpServerConfig.stdio("scripted", "node").args(TestServers.script("scripted-server.js")).build());
        CountDownLatch release = new CountDownLatch(1);
        try {
            blockTheCommonPool(release);
            try (McpServers servers = McpServers.start(configs, listener);
                 ToolRegistry registry = servers.addTo(new ToolRegistry())) {
                assertThat(servers.failures()).singleElement().extracting(SourceFailure::reason).asString()
                        .startsWith("the process exited with status 3")
                        .contains("fatal: the environment variable API_TOKEN is not set");

                ToolChain chain = new ToolChain(registry);
                ReferenceServersTest.succeeded(chain.execute(List.of(ReferenceServersTest.call("scripted", "pid", Map.of()))));
                servers.sources().stream().filter(s -> s.serverName().equals("scripted")).findFirst().orElseThrow()
                        .process().orElseThrow().destroyForcibly();
                for (int i = 0; i < 1200 && problems.stream().noneMatch(p -> p.startsWith("scripted:")); i++) {
                    Thread.sleep(50); // a bounded wait for the report, not a timing assertion
                }
                assertThat(problems).filteredOn(p -> p.startsWith("scripted:")).singleElement().asString()
                        .contains("the process exited").contains("killed by signal 9");
            }
            TestServers.assertNoNewProcesses(before);
        } finally {
            release.countDown();
        }
    }

    /**
     * Blocks every worker of the common pool until {@code release}, and checks that a task
     * submitted after them indeed waits (else the test would prove nothing).
     */
    private static void blockTheCommonPool(CountDownLatch release) throws InterruptedException {
        int workers = ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch blocked = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            ForkJoinPool.commonPool().execute(() -> {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertThat(blocked.await(30, TimeUnit.SECONDS)).as("every worker of the common pool is taken").isTrue();
        CountDownLatch probe = new CountDownLatch(1);
        ForkJoinPool.commonPool().execute(probe::countDown);
        assertThat(probe.await(300, TimeUnit.MILLISECONDS)).as("a task submitted now waits for a worker").isFalse();
    }
}
