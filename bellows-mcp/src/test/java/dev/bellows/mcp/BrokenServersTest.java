package dev.bellows.mcp;

import dev.bellows.testkit.Background;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers that misbehave on purpose: each is reported with its reason, its tools answer with
 * errors, the other servers keep working, and nothing is left running after close.
 */
class BrokenServersTest {

    @Test
    void servers_that_fail_to_start_are_reported_with_their_reason_and_the_others_work() throws Exception {
        Set<Long> before = TestServers.descendants();
        List<McpServerConfig> configs = List.of(
                TestServers.everythingOverStdio("good").build(),
                McpServerConfig.stdio("missing", "bellows-no-such-command").build(),
                McpServerConfig.stdio("quitter", "sh").args(TestServers.script("exits-at-once.sh")).build(),
                McpServerConfig.stdio("garbage", "sh").args(TestServers.script("garbage.sh")).build(),
                McpServerConfig.stdio("hang", "sh").args(TestServers.script("hangs.sh"))
                        .startupTimeout(Duration.ofSeconds(1)).build(),
                McpServerConfig.http("nowhere", "http://127.0.0.1:" + TestServers.freePort() + "/mcp").build());
        try (McpServers servers = McpServers.start(configs, McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(servers.failures()).extracting(SourceFailure::serverName)
                    .containsExactly("missing", "quitter", "garbage", "hang", "nowhere");
            assertThat(registry.sourceFailures()).extracting(SourceFailure::serverName)
                    .containsExactly("missing", "quitter", "garbage", "hang", "nowhere");
            assertThat(reason(servers, "missing")).isEqualTo("command \"bellows-no-such-command\" not found on PATH");
            assertThat(reason(servers, "quitter")).contains("exited with status 3")
                    .contains("stderr: fatal: the environment variable API_TOKEN is not set");
            assertThat(reason(servers, "garbage")).contains("not a JSON-RPC message")
                    .contains("Welcome to the garbage server!");
            assertThat(reason(servers, "hang")).contains("within 1 s (startup timeout)");
            assertThat(reason(servers, "nowhere")).contains("connection refused");

            ToolChain chain = new ToolChain(registry);
            ToolChainResult broken = chain.execute(List.of(ReferenceServersTest.call("quitter", "anything", Map.of())));
            assertThat(ReferenceServersTest.text(broken)).contains("server \"quitter\" is unavailable").contains("exited with status 3");
            ToolChainResult good = chain.execute(List.of(ReferenceServersTest.call("good", "echo", Map.of("message", "still here"))));
            assertThat(ReferenceServersTest.succeeded(good).text()).contains("still here");
        }
        TestServers.assertNoNewProcesses(before);
    }

    @Test
    void a_server_killed_mid_call_is_reported_once_and_restarted_on_the_next_call() throws Exception {
        Set<Long> before = TestServers.descendants();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        List<String> restarts = Collections.synchronizedList(new ArrayList<>());
        McpListener listener = new McpListener() {
            @Override
            public void serverProblem(String server, String reason) {
                problems.add(server + ": " + reason);
            }

            @Override
            public void serverRestarted(String server) {
                restarts.add(server);
            }
        };
        McpServerConfig config = McpServerConfig.stdio("scripted", "node").args(TestServers.script("scripted-server.js"))
                .build();
        try (McpServers servers = McpServers.start(List.of(config), listener);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            McpToolSource source = servers.sources().getFirst();
            ToolChain chain = new ToolChain(registry);
            String firstPid = ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("scripted", "pid", Map.of())))).text().strip();

            CompletableFuture<ToolChainResult> waiting = Background.supply(
                    () -> chain.execute(List.of(ReferenceServersTest.call("scripted", "wait", Map.of()))));
            ProcessHandle server = source.process().orElseThrow();
            awaitStderr(source, "waiting forever");
            server.destroyForcibly();

            ToolChainResult killed = waiting.get(60, TimeUnit.SECONDS);
            assertThat(killed.outcomes().getFirst()).isInstanceOf(ToolCallOutcome.Failed.class);
            assertThat(ReferenceServersTest.text(killed)).contains("stopped during the call").contains("killed by signal 9");
            assertThat(problems).singleElement().asString().startsWith("scripted: stopped: the process exited");

            String secondPid = ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("scripted", "pid", Map.of())))).text().strip();
            assertThat(secondPid).isNotEqualTo(firstPid);
            assertThat(restarts).containsExactly("scripted");
            assertThat(problems).hasSize(1);
        }
        TestServers.assertNoNewProcesses(before);
    }

    @Test
    void a_call_that_times_out_or_is_cancelled_sends_the_cancellation_notification(@TempDir Path dir) throws Exception {
        Path cancelLog = dir.resolve("cancelled.jsonl");
        // Two servers: "hasty" times its calls out after 1 s; "patient" gives a call a minute, so
        // that the user's cancellation, and the calls after it, never race the call timeout on a
        // loaded machine.
        McpServerConfig hasty = McpServerConfig.stdio("hasty", "node").args(TestServers.script("scripted-server.js"))
                .env("CANCEL_LOG", cancelLog.toString())
                .callTimeout(Duration.ofSeconds(1))
                .build();
        McpServerConfig patient = McpServerConfig.stdio("patient", "node").args(TestServers.script("scripted-server.js"))
                .env("CANCEL_LOG", cancelLog.toString())
                .callTimeout(Duration.ofSeconds(60))
                .build();
        try (McpServers servers = McpServers.start(List.of(hasty, patient), McpListener.NONE);
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChain chain = new ToolChain(registry);
            ToolChainResult timedOut = chain.execute(List.of(ReferenceServersTest.call("hasty", "wait", Map.of())));
            assertThat(ReferenceServersTest.text(timedOut)).contains("did not answer the call within 1 s (call timeout)");
            awaitLines(cancelLog, 1);
            assertThat(Files.readAllLines(cancelLog).getFirst()).contains("\"requestId\"").contains("timed out");

            AtomicBoolean cancelled = new AtomicBoolean();
            CompletableFuture<ToolChainResult> waiting = Background.supply(
                    () -> chain.execute(List.of(ReferenceServersTest.call("patient", "wait", Map.of())), cancelled::get));
            awaitStderr(servers.sources().stream().filter(s -> s.serverName().equals("patient")).findFirst().orElseThrow(),
                    "waiting forever on request", 1);
            cancelled.set(true);
            ToolChainResult result = waiting.get(60, TimeUnit.SECONDS);
            assertThat(ReferenceServersTest.text(result)).contains("was cancelled");
            awaitLines(cancelLog, 2);
            assertThat(Files.readAllLines(cancelLog).get(1)).contains("cancelled by the user");

            // Both servers keep working: the one whose call timed out (given the time a loaded
            // machine may need: its 1 s applies to this call too) and the one whose call was cancelled.
            assertThat(answersEventually(chain, "hasty")).isNotBlank();
            assertThat(ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("patient", "pid", Map.of())))).text()).isNotBlank();
        }
    }

    /** The {@code pid} tool's answer, asked again while a loaded machine makes it miss the 1 s call timeout. */
    private static String answersEventually(ToolChain chain, String server) {
        ToolChainResult result = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            result = chain.execute(List.of(ReferenceServersTest.call(server, "pid", Map.of())));
            if (!ReferenceServersTest.text(result).contains("did not answer the call within")) {
                break;
            }
        }
        return ReferenceServersTest.succeeded(result).text();
    }

    @Test
    void tools_list_changed_refreshes_the_registry() throws Exception {
        List<String> changed = Collections.synchronizedList(new ArrayList<>());
        McpServerConfig config = McpServerConfig.stdio("scripted", "node").args(TestServers.script("scripted-server.js"))
                .build();
        try (McpServers servers = McpServers.start(List.of(config), new McpListener() {
            @Override
            public void toolsChanged(String server) {
                changed.add(server);
            }
        });
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            assertThat(registry.find("scripted", "extra")).isEmpty();
            ToolChain chain = new ToolChain(registry);
            ReferenceServersTest.succeeded(chain.execute(List.of(ReferenceServersTest.call("scripted", "grow", Map.of()))));
            // The refresh, then the listener, happen on another thread: a bounded wait for both,
            // not a timing assertion.
            for (int i = 0; i < 600 && (registry.find("scripted", "extra").isEmpty() || !changed.contains("scripted")); i++) {
                Thread.sleep(50);
            }
            assertThat(registry.find("scripted", "extra")).isPresent();
            assertThat(changed).contains("scripted");
        }
    }

    @Test
    void the_processes_a_launcher_started_are_stopped_on_close_and_when_the_launcher_dies() throws Exception {
        Set<Long> before = TestServers.descendants();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<ProcessHandle> launched = new AtomicReference<>();
        List<Boolean> launchedAliveWhenReported = Collections.synchronizedList(new ArrayList<>());
        McpServerConfig config = McpServerConfig.stdio("launched", "sh")
                .args(TestServers.script("launcher.sh"), "node", TestServers.script("scripted-server.js"))
                .build();
        try (McpServers servers = McpServers.start(List.of(config), new McpListener() {
            @Override
            public void serverProblem(String server, String reason) {
                ProcessHandle node = launched.get();
                launchedAliveWhenReported.add(node != null && node.isAlive());
                problems.add(reason);
            }
        });
             ToolRegistry registry = servers.addTo(new ToolRegistry())) {
            ToolChain chain = new ToolChain(registry);
            long nodePid = Long.parseLong(ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("launched", "pid", Map.of())))).text().strip());
            ProcessHandle launcher = servers.sources().getFirst().process().orElseThrow();
            ProcessHandle node = ProcessHandle.of(nodePid).orElseThrow();
            assertThat(node.parent()).as("node runs under the launcher, a grandchild of this JVM").contains(launcher);
            launched.set(node);

            // The launcher dies on its own; the server it started must not live on as an orphan.
            launcher.destroyForcibly();
            node.onExit().get(60, TimeUnit.SECONDS); // hang guard
            assertThat(node.isAlive()).isFalse();
            for (int i = 0; i < 1200 && problems.isEmpty(); i++) {
                Thread.sleep(50);
            }
            assertThat(problems).singleElement().asString().contains("killed by signal 9");
            // The orphan holds the launcher's stderr open: it is stopped before that stderr is
            // waited for, so the launcher's end is reported with nothing of it left running.
            assertThat(launchedAliveWhenReported).containsExactly(false);

            // The next call starts it again, launcher and all; close stops both.
            long again = Long.parseLong(ReferenceServersTest.succeeded(
                    chain.execute(List.of(ReferenceServersTest.call("launched", "pid", Map.of())))).text().strip());
            assertThat(again).isNotEqualTo(nodePid);
        }
        TestServers.assertNoNewProcesses(before);
    }

    private static String reason(McpServers servers, String server) {
        return servers.failures().stream().filter(f -> f.serverName().equals(server)).findFirst().orElseThrow().reason();
    }

    private static void awaitStderr(McpToolSource source, String text) throws Exception {
        awaitStderr(source, text, 1);
    }

    /** Waits until the server's stderr has said {@code text} {@code times} times (bounded). */
    private static void awaitStderr(McpToolSource source, String text, int times) throws Exception {
        for (int i = 0; i < 1200; i++) {
            String tail = source.stderrTail();
            if (tail.split(java.util.regex.Pattern.quote(text), -1).length - 1 >= times) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the server never said \"" + text + "\" " + times + " times: " + source.stderrTail());
    }

    private static void awaitLines(Path file, int lines) throws Exception {
        for (int i = 0; i < 1200; i++) {
            if (Files.exists(file) && Files.readAllLines(file).size() >= lines) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(file + " never had " + lines + " lines");
    }
}
