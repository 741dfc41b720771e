package dev.bellows.mcp;

import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * <p>{@link #start} waits for each server's first start only (at most its startup timeout): a
 * server whose first start failed is started again in the background as its
 * {@link RestartPolicy} says, and its tools join the registry when it comes up. Meanwhile the
 * registry holds it as unavailable, with where it stands ("...; retrying in 2 s (attempt 1 of 5
 * failed)"); {@link #statuses()} says the same for every server, and
 * {@link McpListener#statusChanged} hears each change.
 *
 * <p>Once added, a server's {@code notifications/tools/list_changed} (and a restart that brings
 * other tools) refreshes its tools in the registry. {@link #close()} stops every server and
 * every process they started, in parallel, and ends the retries; a JVM shutdown hook does the
 * same if the program exits without closing (so a launcher's grandchildren are never left running).
 */
public final class McpServers implements AutoCloseable {

    private final List<McpToolSource> sources;
    private final List<SourceFailure> failures;
    private final Thread shutdownHook;
    /** Per server: whether a refresh is wanted, and whether one runs (one at a time per server). */
    private final Map<String, AtomicBoolean> refreshWanted = new ConcurrentHashMap<>();
    private final Map<String, AtomicBoolean> refreshRunning = new ConcurrentHashMap<>();
    private volatile ToolRegistry registry;
    private volatile boolean closed;
    /** Held while the servers are being stopped (see {@link #closeAll}). */
    private final java.util.concurrent.locks.ReentrantLock closing = new java.util.concurrent.locks.ReentrantLock();

    private McpServers(List<McpServerConfig> configs, Map<String, String> env, McpListener listener,
                       McpClientOptions options) {
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

            @Override
            public void statusChanged(String server, McpServerStatus status) {
                if (!(status instanceof McpServerStatus.Closed)) {
                    refresh(server); // the registry's reason for an unavailable server follows the status
                }
                listener.statusChanged(server, status);
            }
        };
        List<McpToolSource> created = new ArrayList<>();
        for (McpServerConfig config : configs) {
            created.add(new McpToolSource(config, env, refreshing, options));
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
     * Starts every server at once and waits until each first start is over (at most the longest
     * startup timeout). Servers whose first start failed are in {@link #failures()} and are
     * started again in the background as their restart policy says; the others run.
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
        return start(configs, env, listener, McpClientOptions.DEFAULTS);
    }

    /**
     * As {@link #start(List, Map, McpListener)}, with how remote servers are authorized (where
     * tokens are kept, how a person logs in) and who answers the servers' questions.
     */
    public static McpServers start(List<McpServerConfig> configs, Map<String, String> env, McpListener listener,
                                   McpClientOptions options) {
        Objects.requireNonNull(configs, "configs");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(options, "options");
        return new McpServers(List.copyOf(configs), env, listener, options);
    }

    /** The servers, in configuration order. */
    public List<McpToolSource> sources() {
        return sources;
    }

    /**
     * The servers whose first start failed, with why and what happens next, as they stood
     * when {@link #start} returned (see {@link #statuses()} for now).
     */
    public List<SourceFailure> failures() {
        return failures;
    }

    /** Where each server stands now, by name, in configuration order. */
    public Map<String, McpServerStatus> statuses() {
        Map<String, McpServerStatus> statuses = new LinkedHashMap<>();
        for (McpToolSource source : sources) {
            statuses.put(source.serverName(), source.status());
        }
        return Collections.unmodifiableMap(statuses);
    }

    /**
     * Waits until every server is up, has been given up on, or is closed: until the retries of
     * those whose first start failed are over. Bounded by the servers' restart policies
     * (attempts times startup timeout, plus the waits between them).
     *
     * @return {@link #statuses()} then
     * @throws InterruptedException when interrupted while waiting
     */
    public Map<String, McpServerStatus> awaitSettled() throws InterruptedException {
        for (McpToolSource source : sources) {
            try {
                source.settled().get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("settling never fails", e);
            }
        }
        return statuses();
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
            if (!source.status().isUp()) {
                // A change while it was being added found no server to refresh: look again now.
                refresh(source.serverName());
            }
        }
        return registry;
    }

    /**
     * Lists the server's tools into the registry again, on a thread of its own (not on the SDK's
     * thread that delivered a notification, nor the server's starting thread). Refreshes of one
     * server run one at a time and each reads the source afresh, so the last one leaves the
     * registry as the source stands; requests made while one runs are folded into one more.
     */
    private void refresh(String server) {
        ToolRegistry target = registry;
        if (target == null || closed) {
            return;
        }
        AtomicBoolean wanted = refreshWanted.computeIfAbsent(server, name -> new AtomicBoolean());
        AtomicBoolean running = refreshRunning.computeIfAbsent(server, name -> new AtomicBoolean());
        wanted.set(true);
        if (running.compareAndSet(false, true)) {
            Thread.ofVirtual().name("mcp-refresh-" + server).start(() -> refreshWhileWanted(target, server, wanted, running));
        }
    }

    private void refreshWhileWanted(ToolRegistry target, String server, AtomicBoolean wanted, AtomicBoolean running) {
        do {
            try {
                while (wanted.getAndSet(false) && !closed) {
                    target.refresh(server);
                }
            } catch (IllegalStateException | IllegalArgumentException e) {
                // the registry was closed meanwhile, or the server is not in it (yet)
                wanted.set(false);
            } finally {
                running.set(false);
            }
            // A request that came after the last look but before running was cleared: take it.
        } while (wanted.get() && !closed && running.compareAndSet(false, true));
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

    /**
     * Stops every server, once. A second caller waits until the first has stopped them: the
     * shutdown hook of a JVM told to exit (SIGTERM's grace over) while the command was closing
     * its servers must not return, and let the JVM end, with a server's process tree still
     * running, orphaned.
     */
    private void closeAll() {
        closing.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
                for (McpToolSource source : sources) {
                    executor.submit(source::close);
                }
            }
        } finally {
            closing.unlock();
        }
    }
}
