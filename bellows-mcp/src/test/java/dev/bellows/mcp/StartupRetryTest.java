package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers whose first start fails, with real processes: one that fails its first starts and
 * then works joins the registry when it comes up while the others worked from the start; one
 * that never works is given up on after its attempts with a clear error that holds no secret;
 * closing during the wait for the next start leaves no process and no thread.
 */
class StartupRetryTest {

    /** Short waits: the tests wait for events, never for a time. */
    private static final RestartPolicy QUICK = new RestartPolicy(4, Duration.ofMillis(50), Duration.ofMillis(200));

    private static final String SECRET_ARG = "arg-SECRET-4242";
    private static final String SECRET_ENV = "env-SECRET-1717";

    @TempDir
    Path dir;

    /** Every status each server went through, in order, by the kind of status. */
    private final Map<String, List<String>> seen = Collections.synchronizedMap(new java.util.LinkedHashMap<>());
    private final List<String> heard = Collections.synchronizedList(new ArrayList<>());

    private final McpListener listener = new McpListener() {
        @Override
        public void statusChanged(String server, McpServerStatus status) {
            seen.computeIfAbsent(server, s -> Collections.synchronizedList(new ArrayList<>()))
                    .add(status.getClass().getSimpleName());
            heard.add(server + ": " + status.describe());
        }

        @Override
        public void serverProblem(String server, String reason) {
            heard.add(server + ": " + reason);
        }

        @Override
        public void toolsChanged(String server) {
            heard.add(server + ": tools changed");
        }
    };

    private McpServerConfig scripted(String name) {
        return McpServerConfig.stdio(name, "node").args(TestServers.script("scripted-server.js")).build();
    }

    @Test
    void a_server_that_fails_its_first_starts_joins_the_registry_when_it_comes_up() throws Exception {
        Set<Long> before = TestServers.descendants();
        Path starts = dir.resolve("starts");
        Path gate = dir.resolve("gate");
        McpServerConfig late = McpServerConfig.stdio("late", "sh")
                .args(TestServers.script("fails-first.sh"), starts.toString(), "2",
                        "node", TestServers.script("scripted-server.js"))
                .env("GATE", gate.toString())
                .restart(QUICK)
                .build();
        try (McpServers servers = McpServers.start(List.of(scripted("good"), late), listener);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            // The good server's tools are there at once; the late one failed its first start and
            // waits at the gate in its second.
            assertThat(registry.find("good", "pid")).isPresent();
            assertThat(servers.failures()).singleElement().satisfies(failure -> {
                assertThat(failure.serverName()).isEqualTo("late");
                assertThat(failure.reason()).startsWith("the process exited with status 1; stderr: start 1: the "
                        + "backend is not ready yet; ").containsAnyOf("(attempt 1 of 4 failed)", "(attempt 2 of 4)");
            });
            assertThat(servers.statuses().get("late")).isInstanceOfAny(McpServerStatus.Retrying.class,
                    McpServerStatus.Starting.class);
            ToolChain chain = new ToolChain(registry);
            ReferenceServersTest.succeeded(chain.execute(List.of(ReferenceServersTest.call("good", "pid", Map.of()))));
            assertThat(ReferenceServersTest.text(chain.execute(List.of(ReferenceServersTest.call("late", "pid", Map.of())))))
                    .contains("server \"late\" is unavailable").contains("start 1: the backend is not ready yet");
            Files.createFile(gate);

            assertThat(servers.awaitSettled()).containsEntry("good", new McpServerStatus.Up())
                    .containsEntry("late", new McpServerStatus.Up());
            awaitTool(registry, "late", "pid");
            String pid = ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("late", "pid", Map.of())))).text().strip();
            assertThat(pid).isNotBlank();
            assertThat(Files.readString(starts).strip()).isEqualTo("3");
            assertThat(registry.sourceFailures()).isEmpty();
            assertThat(seen.get("late")).containsExactly("Starting", "Retrying", "Starting", "Retrying", "Starting", "Up");
            assertThat(seen.get("good")).containsExactly("Starting", "Up");
            assertThat(heard).contains("late: tools changed");
        }
        TestServers.assertNoNewProcesses(before);
        assertThat(seen.get("late")).endsWith("Closed");
    }

    @Test
    void a_server_that_never_starts_is_given_up_on_after_its_attempts_saying_why_and_no_secret() throws Exception {
        Set<Long> before = TestServers.descendants();
        McpServerConfig never = McpServerConfig.stdio("never", "sh")
                .args(TestServers.script("exits-at-once.sh"), "--token", SECRET_ARG)
                .env("API_TOKEN", SECRET_ENV)
                .restart(QUICK)
                .build();
        McpServerConfig missing = McpServerConfig.stdio("missing", "bellows-no-such-command")
                .args("--token", SECRET_ARG).env("API_TOKEN", SECRET_ENV).restart(QUICK).build();
        try (McpServers servers = McpServers.start(List.of(scripted("good"), never, missing), listener);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            Map<String, McpServerStatus> settled = servers.awaitSettled();
            assertThat(settled.get("never")).isInstanceOfSatisfying(McpServerStatus.Failed.class, failed -> {
                assertThat(failed.attempts()).isEqualTo(4);
                assertThat(failed.describe()).startsWith("failed after 4 attempts: the process exited with status 3")
                        .contains("fatal: the environment variable API_TOKEN is not set");
            });
            // A command that does not exist is not tried again: another try cannot mend it.
            assertThat(settled.get("missing")).isEqualTo(
                    new McpServerStatus.Failed("command \"bellows-no-such-command\" not found on PATH", 1));
            assertThat(seen.get("never")).containsExactly("Starting", "Retrying", "Starting", "Retrying", "Starting",
                    "Retrying", "Starting", "Failed");
            assertThat(seen.get("missing")).containsExactly("Starting", "Failed");

            ToolChain chain = new ToolChain(registry);
            String answer = awaitUnavailable(registry, chain, "never", "given up after 4 attempts");
            assertThat(answer).contains("server \"never\" is unavailable").contains("exited with status 3");
            assertThatThrownBy(() -> servers.sources().get(1).tools()).isInstanceOf(ToolException.class)
                    .hasMessageContaining("(given up after 4 attempts)");
            ReferenceServersTest.succeeded(chain.execute(List.of(ReferenceServersTest.call("good", "pid", Map.of()))));

            List<String> everything = new ArrayList<>(heard);
            everything.add(answer);
            servers.failures().stream().map(SourceFailure::reason).forEach(everything::add);
            settled.values().stream().map(McpServerStatus::describe).forEach(everything::add);
            assertThat(String.join("\n", everything)).doesNotContain(SECRET_ARG).doesNotContain(SECRET_ENV);
        }
        TestServers.assertNoNewProcesses(before);
    }

    @Test
    void close_during_the_wait_for_the_next_start_leaves_no_process_and_no_thread() throws Exception {
        Set<Long> before = TestServers.descendants();
        McpServerConfig config = McpServerConfig.stdio("waiting", "sh").args(TestServers.script("exits-at-once.sh"))
                .restart(new RestartPolicy(3, Duration.ofMinutes(10), Duration.ofMinutes(10)))
                .build();
        McpServers servers = McpServers.start(List.of(config), listener);
        McpToolSource source = servers.sources().getFirst();
        assertThat(source.status()).isInstanceOfSatisfying(McpServerStatus.Retrying.class, retrying -> {
            assertThat(retrying.failedAttempts()).isEqualTo(1);
            assertThat(retrying.describe()).startsWith("retrying in ").contains(" s (attempt 1 of 3 failed): ");
        });
        Thread waiting = source.starter().orElseThrow();
        assertThat(waiting.isAlive()).isTrue();

        servers.close();

        assertThat(waiting.isAlive()).as("the thread that waited for the next start").isFalse();
        assertThat(source.starter()).isEmpty();
        assertThat(source.status()).isEqualTo(new McpServerStatus.Closed());
        assertThat(source.settled().get(60, TimeUnit.SECONDS)).isEqualTo(new McpServerStatus.Closed()); // hang guard
        assertThat(seen.get("waiting")).containsExactly("Starting", "Retrying", "Closed");
        TestServers.assertNoNewProcesses(before);
    }

    @Test
    void close_during_a_start_stops_the_process_being_started() throws Exception {
        Set<Long> before = TestServers.descendants();
        McpToolSource source = McpToolSource.of(McpServerConfig.stdio("slow", "sh").args(TestServers.script("hangs.sh"))
                .restart(QUICK).build(), listener);
        source.start();
        for (int i = 0; i < 1200 && TestServers.descendants().stream().noneMatch(pid -> !before.contains(pid)); i++) {
            Thread.sleep(50); // until its process runs; a bounded wait
        }
        Thread starting = source.starter().orElseThrow();
        assertThat(source.status()).isEqualTo(new McpServerStatus.Starting(1, 4));

        source.close();

        assertThat(starting.isAlive()).isFalse();
        TestServers.assertNoNewProcesses(before);
        assertThat(seen.get("slow")).containsExactly("Starting", "Closed");
    }

    private static void awaitTool(ToolRegistry registry, String server, String tool) throws InterruptedException {
        for (int i = 0; i < 1200 && registry.find(server, tool).isEmpty(); i++) {
            Thread.sleep(50); // the refresh runs on its own thread; a bounded wait, not a timing assertion
        }
        assertThat(registry.find(server, tool)).as(registry.sourceFailures().toString()).isPresent();
    }

    /** What a call to the server answers once the registry has the given reason (the refresh is asynchronous). */
    private static String awaitUnavailable(ToolRegistry registry, ToolChain chain, String server, String text)
            throws InterruptedException {
        String answer = "";
        for (int i = 0; i < 1200; i++) {
            answer = ReferenceServersTest.text(chain.execute(List.of(ReferenceServersTest.call(server, "anything", Map.of()))));
            if (answer.contains(text)) {
                return answer;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the registry never said \"" + text + "\": " + answer);
    }
}
