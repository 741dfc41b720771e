package dev.bellows.mcp;

import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Several MCP servers started together, in parallel, each within its startup timeout, then
 * added to a {@link ToolRegistry}:
 *
 * <pre>{@code
 * List<McpServerConfig> configs = McpConfig.parse(Files.readString(file), file.toString(), file.getParent());
 * try (McpServers servers = McpServers.start(configs, McpListener.NONE);
 *      ToolRegistry tools = servers.addTo(new ToolRegistry())) {
 *     servers.failures().forEach(f -> System.err.println(f));   // the others work
 *     ... run the agent with tools ...
 * }
 * }</pre>
 *
 * <p>Once added, a server's {@code notifications/tools/list_changed} (and a restart that brings
 * other tools) refreshes its tools in the registry. {@link #close()} stops every server and
 * every process they started, in parallel; a JVM shutdown hook does the same if the program
 * exits without closing (so a launcher's grandchildren are never left running).
 */
public final class McpServers implements AutoCloseable {

    private final List<McpToolSource> sources;
    private final List<SourceFailure> failures;
    private final Thread shutdownHook;
    private volatile ToolRegistry registry;
    private volatile boolean closed;

    private McpServers(List<McpServerConfig> configs, Map<String, String> env, McpListener listener) {
        Set<String> names = new HashSet<>();
        for (McpServerConfig config : configs) {
            if (!names.add(config.name())) {
                throw new McpConfigException("two MCP servers are named \"" + config.name() + "\"");
            }
        }
        McpListener refreshing = new McpListener() {
            @Override
            public void serverProblem(String server, String reason) {
                listener.serverProblem(server, reason);
            }

            @Override
            public void serverRestarted(String server) {
                listener.serverRestarted(server);
            }

            @Override
            public void toolsChanged(String server) {
                refresh(server);
                listener.toolsChanged(server);
            }
        };
        List<McpToolSource> created = new ArrayList<>();
        for (McpServerConfig config : configs) {
            created.add(new McpToolSource(config, env, refreshing));
        }
        this.sources = List.copyOf(created);
        this.shutdownHook = new Thread(this::closeAll, "bellows-mcp-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        List<CompletableFuture<Void>> started = sources.stream().map(McpToolSource::start).toList();
        CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).join();
        List<SourceFailure> failed = new ArrayList<>();
        for (McpToolSource source : sources) {
            try {
                source.tools();
            } catch (ToolException e) {
                failed.add(new SourceFailure(source.serverName(), e.getMessage(), e));
            }
        }
        this.failures = List.copyOf(failed);
    }

    /**
     * Starts every server at once and waits until each has started or failed (at most the
     * longest startup timeout). Servers that fail are in {@link #failures()}; the others run.
     *
     * @throws McpConfigException when two servers have the same name
     */
    public static McpServers start(List<McpServerConfig> configs, McpListener listener) {
        return start(configs, System.getenv(), listener);
    }

    /**
     * As {@link #start(List, McpListener)}, with the environment stdio servers inherit their
     * few variables ({@code PATH}, {@code HOME}, ...) from.
     */
    public static McpServers start(List<McpServerConfig> configs, Map<String, String> env, McpListener listener) {
        Objects.requireNonNull(configs, "configs");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(listener, "listener");
        return new McpServers(List.copyOf(configs), env, listener);
    }

    /** The servers, in configuration order. */
    public List<McpToolSource> sources() {
        return sources;
    }

    /** The servers that did not start, with why. */
    public List<SourceFailure> failures() {
        return failures;
    }

    /**
     * Adds every server to the registry (failed ones as unavailable, as the registry does) and
     * keeps their tools there up to date. Closing the registry closes the servers too.
     *
     * @return the registry
     */
    public ToolRegistry addTo(ToolRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        this.registry = registry;
        for (McpToolSource source : sources) {
            registry.addSource(source);
        }
        return registry;
    }

    private void refresh(String server) {
        ToolRegistry target = registry;
        if (target == null || closed) {
            return;
        }
        // Not on the SDK's thread that delivered the notification: refresh lists the tools again.
        Thread.ofVirtual().name("mcp-refresh-" + server).start(() -> {
            try {
                target.refresh(server);
            } catch (IllegalStateException | IllegalArgumentException e) {
                // the registry was closed meanwhile, or the server is not in it
            }
        });
    }

    /** Stops every server and the processes they started, in parallel. Idempotent. */
    @Override
    public void close() {
        closeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
    }

    private void closeAll() {
        if (closed) {
            return;
        }
        closed = true;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (McpToolSource source : sources) {
                executor.submit(source::close);
            }
        }
    }
}
