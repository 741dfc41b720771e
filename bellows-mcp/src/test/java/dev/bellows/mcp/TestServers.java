package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.NpmPackages;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The servers the tests talk to: the official reference servers from the npm registry,
 * installed by the test run into {@code .cache/mcp}, and the broken ones in the test resources.
 */
final class TestServers {

    static final String EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31";
    static final String FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31";

    private TestServers() {
    }

    /** node_modules with both reference servers; fails clearly when node or npm is missing. */
    static Path nodeModules() {
        return NpmPackages.install(NpmPackages.cacheDir("mcp"), EVERYTHING, FILESYSTEM);
    }

    static String everything() {
        return nodeModules().resolve("@modelcontextprotocol/server-everything/dist/index.js").toString();
    }

    static String filesystem() {
        return nodeModules().resolve("@modelcontextprotocol/server-filesystem/dist/index.js").toString();
    }

    /** A file of src/test/resources/servers. */
    static String script(String name) {
        try {
            return Path.of(TestServers.class.getResource("/servers/" + name).toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static McpServerConfig.StdioBuilder everythingOverStdio(String name) {
        return McpServerConfig.stdio(name, "node").args(everything(), "stdio");
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A server process and the port it listens on. */
    record Listening(Process process, int port) {
    }

    /**
     * Starts the everything server in Streamable HTTP mode on a free port and waits until it
     * says it listens. The port is picked before the server binds it, so another process may
     * take it in between: a server that exits before listening is started again on another
     * port. The caller destroys the process.
     */
    static Listening everythingOverHttp() throws Exception {
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            Process process = everythingOverHttp(port);
            if (process != null) {
                return new Listening(process, port);
            }
            failure = new IllegalStateException("the everything server exited before listening on port " + port);
        }
        throw failure;
    }

    /** The server listening on {@code port}, or null when it exited before it listened. */
    private static Process everythingOverHttp(int port) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("node", everything(), "streamableHttp").redirectErrorStream(true);
        builder.environment().put("PORT", String.valueOf(port));
        Process process = builder.start();
        CompletableFuture<Boolean> listening = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("everything-output").start(() -> { // a pipe read pins a carrier: see CarrierStarvationTest
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.contains("listening on port")) {
                        listening.complete(true);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            listening.complete(false);
        });
        if (listening.get(60, TimeUnit.SECONDS)) { // hang guard, not a timing assertion
            return process;
        }
        process.waitFor();
        return null;
    }

    /** The processes descending from this JVM now. */
    static Set<Long> descendants() {
        return ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /** Asserts that no process started since {@code before} is still alive. */
    static void assertNoNewProcesses(Set<Long> before) {
        List<String> left = ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> !before.contains(p.pid()))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?"))
                .toList();
        assertThat(left).as("processes left running after close").isEmpty();
    }
}
