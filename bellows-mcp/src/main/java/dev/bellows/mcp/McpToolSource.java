package dev.bellows.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.ToolSource;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One MCP server as a {@link ToolSource}: its tools join a {@link dev.bellows.tool.ToolRegistry}
 * under the server's name, with their input schemas, and calls go to the server through the
 * official MCP Java SDK.
 *
 * <pre>{@code
 * try (ToolRegistry tools = new ToolRegistry()) {
 *     tools.addSource(McpToolSource.of(McpServerConfig.stdio("everything", "npx")
 *             .args("-y", "@modelcontextprotocol/server-everything").build()));
 *     tools.sourceFailures().forEach(System.err::println);
 * }
 * }</pre>
 * To start several servers at once, use {@link McpServers}.
 *
 * <h2>Lifecycle</h2>
 * {@link #start()} starts the server in the background (the first {@link #tools()} does too)
 * and waits at most the startup timeout. A server that does not start makes {@link #tools()}
 * throw with the reason (the tail of its standard error, the HTTP status, "not found on
 * PATH"), which the registry reports. A server that stops later (crashes, is killed) is
 * reported once to the {@link McpListener}; calls then fail with the reason, and the next
 * call starts it again: at once after the first stop, then after a back-off that doubles up
 * to 30 s while it keeps failing. A call waits at most the call timeout; when the time is up,
 * or the run is cancelled, the server is sent {@code notifications/cancelled}.
 * {@link #close()} stops the server and every process it started.
 *
 * <h2>Threads</h2>
 * Calls may come from any number of threads. The lock guards only the bookkeeping of which
 * connection is current; it is never held while starting a server, calling or closing.
 */
public final class McpToolSource implements ToolSource {

    // Names and reasons only: a server's command line, env and headers may hold secrets.
    private static final System.Logger LOG = System.getLogger(McpToolSource.class.getName());


    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final McpServerConfig config;
    private final Map<String, String> env;
    private final McpListener listener;
    private final Object lock = new Object();

    // Guarded by lock.
    private CompletableFuture<McpConnection> current;
    private int failuresInARow;
    private long retryAtNanos;
    private String lastProblem;
    private boolean closed;

    private volatile List<McpTool> tools = List.of();

    McpToolSource(McpServerConfig config, Map<String, String> env, McpListener listener) {
        this.config = Objects.requireNonNull(config, "config");
        this.env = Map.copyOf(env);
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** A source for one server; stdio servers get the few variables they need from this process's environment. */
    public static McpToolSource of(McpServerConfig config) {
        return new McpToolSource(config, System.getenv(), McpListener.NONE);
    }

    /** A source that reports what happens to the server to {@code listener}. */
    public static McpToolSource of(McpServerConfig config, McpListener listener) {
        return new McpToolSource(config, System.getenv(), listener);
    }

    @Override
    public String serverName() {
        return config.name();
    }

    /** The server's configuration. */
    public McpServerConfig config() {
        return config;
    }

    /**
     * Starts the server in the background unless it is starting or started. The future
     * completes when it has started or failed to (never later than the startup timeout).
     *
     * @throws IllegalStateException when the source is closed
     */
    public CompletableFuture<Void> start() {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("MCP server \"" + config.name() + "\" is closed");
            }
            if (current == null) {
                current = launch(false);
            }
            attempt = current;
        }
        return attempt.handle((connection, failure) -> null);
    }

    /**
     * The server's tools, starting it first if needed.
     *
     * @throws ToolException when the server could not be started; the message says why
     */
    @Override
    public List<Tool> tools() throws ToolException {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            if (closed) {
                throw new ToolException("MCP server \"" + config.name() + "\" is closed");
            }
            if (current == null) {
                current = launch(false);
            }
            attempt = current;
        }
        await(attempt);
        return List.copyOf(tools);
    }

    /** The server's process while a stdio server runs (for diagnostics and tests). */
    public Optional<ProcessHandle> process() {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            attempt = current;
        }
        if (attempt == null || !attempt.isDone() || attempt.isCompletedExceptionally()) {
            return Optional.empty();
        }
        return attempt.join().process();
    }

    /** What the current stdio server wrote to stderr lately ({@code "; stderr: ..."}), for diagnostics. */
    String stderrTail() {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            attempt = current;
        }
        if (attempt == null || !attempt.isDone() || attempt.isCompletedExceptionally()) {
            return "";
        }
        return attempt.join().stderrNow();
    }

    /** Runs one tool on the server; {@link McpTool} calls this. */
    ToolResult<?> call(String tool, JsonNode arguments, ToolContext context) throws ToolException {
        McpConnection connection = connectionForCall(tool);
        Map<String, Object> args = arguments == null || arguments.isNull() || arguments.isMissingNode()
                ? Map.of()
                : ResultMapper.JSON.convertValue(arguments, new TypeReference<Map<String, Object>>() { });
        McpSchema.CallToolResult result;
        try {
            result = connection.call(tool, args, context::isCancelled);
        } catch (McpConnection.McpCallCancelled e) {
            throw new ToolException("the call to " + config.name() + "/" + tool + " was cancelled");
        }
        synchronized (lock) {
            failuresInARow = 0;
        }
        return ResultMapper.map(config.name(), tool, result);
    }

    /** The connection to call on: the current one, or a new one when the server stopped and may restart now. */
    private McpConnection connectionForCall(String tool) throws ToolException {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            if (closed) {
                throw new ToolException("MCP server \"" + config.name() + "\" is closed");
            }
            attempt = current;
            if (attempt == null) {
                attempt = current = launch(false);
            } else if (attempt.isDone() && stopped(attempt)) {
                long wait = retryAtNanos - System.nanoTime();
                if (wait > 0) {
                    throw new ToolException("tool \"" + tool + "\" cannot be called: MCP server \"" + config.name()
                            + "\" is not running (" + lastProblem + "); it is started again on a call after "
                            + Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait + 999_999_999)) + " s");
                }
                attempt = current = launch(true);
            }
        }
        return await(attempt);
    }

    private static boolean stopped(CompletableFuture<McpConnection> attempt) {
        return attempt.isCompletedExceptionally() || attempt.join().isEnded();
    }

    /** Starts a connection on a virtual thread; called with the lock held, so it only creates and forks. */
    private CompletableFuture<McpConnection> launch(boolean restart) {
        CompletableFuture<McpConnection> attempt = new CompletableFuture<>();
        List<McpTool> before = tools;
        Thread.ofVirtual().name("mcp-start-" + config.name()).start(() -> {
            McpConnection connection;
            LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + (restart ? ": starting again" : ": starting"));
            try {
                connection = McpConnection.open(config, env, this::toolsChanged);
            } catch (ToolException e) {
                failed(e.getMessage(), restart);
                attempt.completeExceptionally(e);
                return;
            } catch (RuntimeException | Error e) {
                // A bug or a broken classpath: still a failure to report, never a caller waiting forever.
                String reason = "it could not be started: " + e;
                failed(reason, restart);
                attempt.completeExceptionally(new ToolException(reason, e));
                if (e instanceof Error error && !(error instanceof LinkageError)) {
                    throw error;
                }
                return;
            }
            tools = wrap(connection.tools());
            LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": started, "
                    + connection.tools().size() + " tools");
            connection.ended().thenAccept(reason -> ended(connection, reason));
            if (restart) {
                // Told before the waiting call goes on, so a listener never hears of it late.
                listener.serverRestarted(config.name());
            }
            attempt.complete(connection);
            boolean closeNow;
            synchronized (lock) {
                closeNow = closed;
            }
            if (closeNow) {
                connection.close();
                return;
            }
            if (restart && !sameTools(before, tools)) {
                listener.toolsChanged(config.name()); // after complete: the registry refresh lists them
            }
        });
        return attempt;
    }

    private void failed(String reason, boolean restart) {
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": did not start: " + reason);
        synchronized (lock) {
            failuresInARow++;
            retryAtNanos = System.nanoTime() + backoff(failuresInARow).toNanos();
            lastProblem = reason;
        }
        if (restart) {
            listener.serverProblem(config.name(), "could not be restarted: " + reason);
        }
    }

    /** A connection ended; unless Bellows closed it, the server stopped on its own. */
    private void ended(McpConnection connection, String reason) {
        synchronized (lock) {
            if (closed || connection.wasClosed() || current == null || current.getNow(null) != connection) {
                return;
            }
            failuresInARow++;
            retryAtNanos = System.nanoTime() + backoff(failuresInARow).toNanos();
            lastProblem = "it stopped: " + reason;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": stopped on its own: " + reason);
        listener.serverProblem(config.name(), "stopped: " + reason + "; it is started again on the next call");
    }

    /** No wait after the first stop; then 1 s, 2 s, 4 s ... up to {@link #MAX_BACKOFF}. */
    static Duration backoff(int failuresInARow) {
        if (failuresInARow <= 1) {
            return Duration.ZERO;
        }
        long seconds = 1L << Math.min(failuresInARow - 2, 10);
        return Duration.ofSeconds(Math.min(seconds, MAX_BACKOFF.toSeconds()));
    }

    private void toolsChanged(McpConnection connection) {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            attempt = current;
        }
        if (attempt != null && attempt.getNow(null) == connection) {
            tools = wrap(connection.tools());
            listener.toolsChanged(config.name());
        }
    }

    private List<McpTool> wrap(List<McpSchema.Tool> listed) {
        List<McpTool> wrapped = new ArrayList<>(listed.size());
        for (McpSchema.Tool tool : listed) {
            wrapped.add(new McpTool(this, tool));
        }
        return List.copyOf(wrapped);
    }

    private static boolean sameTools(List<McpTool> a, List<McpTool> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).sameAs(b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private McpConnection await(CompletableFuture<McpConnection> attempt) throws ToolException {
        try {
            return attempt.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolException failure) {
                throw new ToolException(failure.getMessage(), failure.getCause());
            }
            throw new ToolException(Failures.describe(e.getCause(), config), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException("interrupted while MCP server \"" + config.name() + "\" was starting");
        }
    }

    /** Stops the server and every process it started; waits for that (a few seconds at most). Idempotent. */
    @Override
    public void close() {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            attempt = current;
        }
        if (attempt == null) {
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": stopping");
        try {
            // A server still starting is closed by its starting thread once it is up (or has failed).
            attempt.get(config.startupTimeout().toMillis() + 10_000, TimeUnit.MILLISECONDS).close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // it never started: nothing to stop
        }
    }

    @Override
    public String toString() {
        return "McpToolSource[" + config + "]";
    }
}
