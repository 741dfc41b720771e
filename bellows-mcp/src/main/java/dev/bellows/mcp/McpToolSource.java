package dev.bellows.mcp;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import dev.bellows.mcp.auth.McpAuthorization;
import dev.bellows.secret.Secrets;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.ToolSource;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.time.Instant;
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
 * To start several servers at once, and to have late servers' tools join the registry, use
 * {@link McpServers}.
 *
 * <h2>Lifecycle</h2>
 * {@link #start()} starts the server in the background (the first {@link #tools()} does too)
 * and waits at most the startup timeout. A server whose first start fails is started again in
 * the background as its {@link RestartPolicy} says (after 1 s, then 2 s, 4 s ... by default),
 * until it comes up or the attempts are used up; meanwhile {@link #tools()} throws at once with
 * where it stands ("retrying in 2 s (attempt 1 of 5 failed): ..."), and when it comes up the
 * {@link McpListener} hears {@link McpListener#toolsChanged} (which {@link McpServers} turns into
 * a registry refresh). A failure another try cannot mend (the command does not exist, HTTP 404)
 * is not retried. A server that stops later (crashes, is killed) is reported once to the
 * listener; calls then fail with the reason, and the next call starts it again: at once after
 * the first stop, then after a back-off that doubles while it keeps stopping or failing to
 * start, until the policy's attempts are used up. {@link #status()} says where it stands; each
 * change goes to {@link McpListener#statusChanged}. A call waits at most the call timeout; when
 * the time is up, or the run is cancelled, the server is sent {@code notifications/cancelled}.
 * {@link #close()} stops the server and every process it started, and ends a start under way
 * or a wait for the next one.
 *
 * <h2>Threads</h2>
 * Calls may come from any number of threads. The lock guards only the bookkeeping of which
 * connection is current; it is never held while starting a server, calling, waiting or closing.
 * One virtual thread at a time starts the server (and waits between retries); close interrupts
 * and joins it.
 */
public final class McpToolSource implements ToolSource {

    // Names and reasons only: a server's command line, env and headers may hold secrets.
    private static final System.Logger LOG = System.getLogger(McpToolSource.class.getName());

    /** The longest close() waits for the starting thread beyond the startup timeout. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(15);

    private final McpServerConfig config;
    private final RestartPolicy policy;
    private final Map<String, String> env;
    private final McpListener listener;
    private final ElicitationHandler elicitation;
    /** The server's OAuth authorization (kept across restarts), or null: stdio, or a static Authorization header. */
    private final McpAuthorization authorization;
    /** Headers of the caller's (a traceparent) on each HTTP request; see {@link McpClientOptions#requestHeaders()}. */
    private final java.util.function.Supplier<Map<String, String>> requestHeaders;
    private final Object lock = new Object();
    /** Completes when the first start is over, whether it worked or not. */
    private final CompletableFuture<Void> firstStart = new CompletableFuture<>();
    /** Completes the first time the server is up, given up on, or closed. */
    private final CompletableFuture<McpServerStatus> settled = new CompletableFuture<>();

    // Guarded by lock.
    private CompletableFuture<McpConnection> current;
    private Thread starter;
    private int failedStarts;
    private int stopsInARow;
    private long retryAtNanos;
    private String lastProblem;
    private boolean everUp;
    private boolean gaveUp;
    private boolean closed;
    private McpServerStatus status = new McpServerStatus.NotStarted();

    private volatile List<McpTool> tools = List.of();

    McpToolSource(McpServerConfig config, Map<String, String> env, McpListener listener) {
        this(config, env, listener, McpClientOptions.DEFAULTS);
    }

    McpToolSource(McpServerConfig config, Map<String, String> env, McpListener listener, McpClientOptions options) {
        this.config = Objects.requireNonNull(config, "config");
        this.policy = config.restart();
        this.env = Map.copyOf(env);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.elicitation = options.elicitation();
        this.requestHeaders = options.requestHeaders();
        this.authorization = config instanceof McpServerConfig.StreamableHttp http && http.usesOAuth()
                ? McpAuthorization.of(http.name(), http.url(), http.oauth(), options.oauth())
                : null;
        // The values of env and headers are secrets: kept out of every output, observation and stored session.
        Secrets.register(switch (config) {
            case McpServerConfig.Stdio stdio -> stdio.env().values();
            case McpServerConfig.StreamableHttp http -> http.headers().values();
        });
    }

    /** A source for one server; stdio servers get the few variables they need from this process's environment. */
    public static McpToolSource of(McpServerConfig config) {
        return new McpToolSource(config, System.getenv(), McpListener.NONE);
    }

    /** A source that reports what happens to the server to {@code listener}. */
    public static McpToolSource of(McpServerConfig config, McpListener listener) {
        return new McpToolSource(config, System.getenv(), listener);
    }

    /** A source with the program's authorization and elicitation options. */
    public static McpToolSource of(McpServerConfig config, McpListener listener, McpClientOptions options) {
        return new McpToolSource(config, System.getenv(), listener, Objects.requireNonNull(options, "options"));
    }

    @Override
    public String serverName() {
        return config.name();
    }

    /** The server's configuration. */
    public McpServerConfig config() {
        return config;
    }

    /** Where the server stands now. */
    public McpServerStatus status() {
        synchronized (lock) {
            return status;
        }
    }

    /**
     * Starts the server in the background unless it is starting or started. The future
     * completes when the first start is over, whether the server came up or not (never later
     * than the startup timeout); retries go on in the background.
     *
     * @throws IllegalStateException when the source is closed
     */
    public CompletableFuture<Void> start() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("MCP server \"" + config.name() + "\" is closed");
            }
            if (current == null) {
                launch(false);
            }
        }
        return firstStart.copy();
    }

    /**
     * Completes, with the status, the first time the server is up, has been given up on, or is
     * closed: after its retries, when its first start failed. Starts it if needed.
     */
    public CompletableFuture<McpServerStatus> settled() {
        synchronized (lock) {
            if (!closed && current == null) {
                launch(false);
            }
        }
        return settled.copy();
    }

    /**
     * The server's tools, starting it first if needed (and then waiting for that first start).
     *
     * @throws ToolException when the server is not up and has never been: it failed to start,
     *                       and is being started again or has been given up on; the message says
     *                       which, and why
     */
    @Override
    public List<Tool> tools() throws ToolException {
        try {
            return listTools();
        } catch (ToolException e) {
            throw redacted(e);
        }
    }

    /**
     * {@code failure} without any registered secret in its message (a server may echo its
     * headers in an error body); itself when it has none. The cause, which may quote the
     * same text, is left out then.
     */
    static ToolException redacted(ToolException failure) {
        String message = failure.getMessage();
        return Secrets.appearIn(message) ? new ToolException(Secrets.redact(message)) : failure;
    }

    private List<Tool> listTools() throws ToolException {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            if (closed) {
                throw new ToolException("MCP server \"" + config.name() + "\" is closed");
            }
            if (current == null) {
                launch(false);
            }
            if (gaveUp || (!everUp && failedStarts > 0)) {
                throw new ToolException(unavailable());
            }
            if (everUp) {
                return List.copyOf(tools); // the last list, also while it is stopped: the next call starts it
            }
            attempt = current; // the first start, under way
        }
        try {
            await(attempt);
        } catch (ToolException e) {
            synchronized (lock) {
                if (!closed && failedStarts > 0) {
                    throw new ToolException(unavailable(), e.getCause());
                }
            }
            throw e;
        }
        return List.copyOf(tools);
    }

    /** Why the server's tools cannot be listed or called now: its reason first, then what happens next. Lock held. */
    private String unavailable() {
        return switch (status) {
            case McpServerStatus.Failed failed -> failed.attempts() > 1
                    ? failed.reason() + " (given up after " + failed.attempts() + " attempts)"
                    : failed.reason();
            case McpServerStatus.Retrying retrying -> retrying.reason() + "; " + retrying.next();
            case McpServerStatus.Starting starting -> lastProblem + "; starting again (attempt " + starting.attempt()
                    + " of " + starting.maxAttempts() + ")";
            default -> status.describe();
        };
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

    /** The thread starting the server or waiting to start it again, if any (for tests). */
    Optional<Thread> starter() {
        synchronized (lock) {
            return Optional.ofNullable(starter);
        }
    }

    /** Runs one tool on the server; {@link McpTool} calls this. */
    ToolResult<?> call(String tool, JsonNode arguments, ToolContext context) throws ToolException {
        try {
            return callTool(tool, arguments, context);
        } catch (ToolException e) {
            throw redacted(e);
        }
    }

    private ToolResult<?> callTool(String tool, JsonNode arguments, ToolContext context) throws ToolException {
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
            stopsInARow = 0;
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
            if (gaveUp || (!everUp && failedStarts > 0)) {
                throw new ToolException("tool \"" + tool + "\" cannot be called: MCP server \"" + config.name()
                        + "\" is not running: " + unavailable());
            }
            attempt = current;
            if (attempt == null) {
                attempt = launch(false);
            } else if (everUp && attempt.isDone() && stopped(attempt)) {
                long wait = retryAtNanos - System.nanoTime();
                if (wait > 0) {
                    throw new ToolException("tool \"" + tool + "\" cannot be called: MCP server \"" + config.name()
                            + "\" is not running (" + lastProblem + "); it is started again on a call after "
                            + Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait + 999_999_999)) + " s");
                }
                attempt = launch(true);
            }
        }
        return await(attempt);
    }

    /** The attempt's connection, or null while it is under way or when it failed. */
    private static McpConnection connectionOf(CompletableFuture<McpConnection> attempt) {
        return attempt == null || !attempt.isDone() || attempt.isCompletedExceptionally() ? null : attempt.join();
    }

    private static boolean stopped(CompletableFuture<McpConnection> attempt) {
        return attempt.isCompletedExceptionally() || attempt.join().isEnded();
    }

    /**
     * Makes the next attempt current and forks the thread that makes it (and, for a server
     * that never came up, the retries after it). Called with the lock held: it only creates and forks.
     */
    private CompletableFuture<McpConnection> launch(boolean restart) {
        CompletableFuture<McpConnection> attempt = new CompletableFuture<>();
        current = attempt;
        McpServerStatus starting = new McpServerStatus.Starting(failedStarts + 1, policy.maxAttempts());
        status = starting;
        // The new thread needs the lock to clear this field, so it cannot do so before it is set.
        starter = Thread.ofVirtual().name("mcp-start-" + config.name()).start(() -> starting(attempt, restart, starting));
        return attempt;
    }

    /**
     * The starting thread: one attempt, then, while the server has never been up, the waits
     * and attempts the restart policy allows. A server that ran before is started again by
     * the next call instead, so that a server that keeps crashing is not restarted in a loop.
     */
    private void starting(CompletableFuture<McpConnection> first, boolean restart, McpServerStatus starting) {
        try {
            CompletableFuture<McpConnection> attempt = first;
            McpServerStatus told = starting;
            while (true) {
                tell(told);
                if (attemptStart(attempt, restart)) {
                    return;
                }
                long wait;
                synchronized (lock) {
                    if (closed || everUp || gaveUp) {
                        return;
                    }
                    wait = retryAtNanos - System.nanoTime();
                }
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // close() interrupts this
                }
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    attempt = new CompletableFuture<>();
                    current = attempt;
                    told = new McpServerStatus.Starting(failedStarts + 1, policy.maxAttempts());
                    status = told;
                }
            }
        } catch (InterruptedException e) {
            // closed while waiting for the next attempt: nothing runs, nothing to stop
        } finally {
            firstStart.complete(null);
            synchronized (lock) {
                if (starter == Thread.currentThread()) {
                    starter = null;
                }
            }
        }
    }

    /** One start; true when the server came up. Never throws for a server's failure. */
    private boolean attemptStart(CompletableFuture<McpConnection> attempt, boolean restart) {
        List<McpTool> before = tools;
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + (restart ? ": starting again" : ": starting"));
        McpConnection connection;
        try {
            connection = McpConnection.open(config, env, this::toolsChanged, authorization, elicitation, requestHeaders);
        } catch (McpConnection.StartFailure e) {
            failed(attempt, e.getMessage(), e.permanent(), restart, e.getCause());
            return false;
        } catch (RuntimeException | Error e) {
            // A bug or a broken classpath: still a failure to report, never a caller waiting forever.
            failed(attempt, "it could not be started: " + e, true, restart, e);
            if (e instanceof Error error && !(error instanceof LinkageError)) {
                throw error;
            }
            return false;
        }
        tools = wrap(connection.tools());
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": started, "
                + connection.tools().size() + " tools");
        boolean closeNow;
        boolean late;
        McpServerStatus up = new McpServerStatus.Up();
        synchronized (lock) {
            closeNow = closed;
            late = !everUp && failedStarts > 0;
            failedStarts = 0;
            everUp = true;
            if (!closed) {
                status = up;
            }
        }
        if (restart && !closeNow) {
            // Told before the waiting call goes on, so a listener never hears of it late.
            listener.serverRestarted(config.name());
        }
        attempt.complete(connection);
        firstStart.complete(null);
        if (closeNow) {
            Thread.interrupted(); // close() may have interrupted this thread: stopping must still wait for the processes
            connection.close();
            return true;
        }
        // After complete: ended() recognises the connection as the current one, even when it already ended.
        connection.ended().thenAccept(reason -> ended(connection, reason));
        if ((restart || late) && !sameTools(before, tools)) {
            listener.toolsChanged(config.name()); // after complete: the registry refresh lists them
        }
        tell(up); // last: settled() waiters go on once the listener has heard everything
        return true;
    }

    /** A start failed: wait before the next one, or give up. */
    private void failed(CompletableFuture<McpConnection> attempt, String reason, boolean permanent, boolean restart,
                        Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": did not start: " + reason);
        McpServerStatus next = null;
        boolean givenUp;
        synchronized (lock) {
            failedStarts++;
            lastProblem = reason;
            if (!closed) {
                if (permanent || policy.exhaustedBy(failedStarts)) {
                    gaveUp = true;
                    next = new McpServerStatus.Failed(reason, failedStarts);
                } else {
                    Duration delay = policy.delayAfter(failedStarts);
                    retryAtNanos = System.nanoTime() + delay.toNanos();
                    Instant at = Instant.now().plus(delay);
                    next = everUp ? new McpServerStatus.Stopped(reason, at)
                            : new McpServerStatus.Retrying(reason, failedStarts, policy.maxAttempts(), at);
                }
                status = next;
            }
            givenUp = gaveUp;
        }
        attempt.completeExceptionally(new ToolException(reason, cause));
        firstStart.complete(null);
        if (restart && next != null) {
            listener.serverProblem(config.name(), "could not be restarted: " + reason
                    + (givenUp ? "; given up on" : ""));
        }
        if (next != null) {
            tell(next);
        }
    }

    /** A connection ended; unless Bellows closed it, the server stopped on its own. */
    private void ended(McpConnection connection, String reason) {
        McpServerStatus next;
        synchronized (lock) {
            if (closed || connection.wasClosed() || connectionOf(current) != connection) {
                return;
            }
            stopsInARow++;
            Duration delay = backoff(policy, stopsInARow);
            retryAtNanos = System.nanoTime() + delay.toNanos();
            lastProblem = "it stopped: " + reason;
            next = new McpServerStatus.Stopped(reason, Instant.now().plus(delay));
            status = next;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": stopped on its own: " + reason);
        listener.serverProblem(config.name(), "stopped: " + reason + "; it is started again on the next call");
        tell(next);
    }

    /** Tells the listener of a status change, before anyone waiting for it goes on; outside the lock. */
    private void tell(McpServerStatus next) {
        try {
            listener.statusChanged(config.name(), next);
        } finally {
            if (next.isSettled()) {
                settled.complete(next);
            }
        }
    }

    /** The wait before a server that stopped on its own may start again: none after the first stop, then the policy's delays. */
    static Duration backoff(RestartPolicy policy, int stopsInARow) {
        return stopsInARow <= 1 ? Duration.ZERO : policy.delayAfter(stopsInARow - 1);
    }

    private void toolsChanged(McpConnection connection) {
        CompletableFuture<McpConnection> attempt;
        synchronized (lock) {
            attempt = current;
        }
        if (connectionOf(attempt) == connection) {
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

    /**
     * Stops the server and every process it started, ends a start under way (its process is
     * stopped) or a wait for the next one, and waits for all that (a few seconds at most).
     * Idempotent.
     */
    @Override
    public void close() {
        CompletableFuture<McpConnection> attempt;
        Thread starting;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            attempt = current;
            starting = starter;
            status = new McpServerStatus.Closed();
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": stopping");
        if (starting != null) {
            starting.interrupt(); // a start under way stops its process; a wait for the next one ends
            try {
                if (!starting.join(config.startupTimeout().plus(CLOSE_GRACE))) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "MCP server " + config.name() + ": still starting after close");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (attempt != null) {
            // Done by now, unless the start would not end: then it is closed whenever it does.
            attempt.thenAccept(McpConnection::close);
        }
        tell(new McpServerStatus.Closed());
    }

    @Override
    public String toString() {
        return "McpToolSource[" + config + "]";
    }
}
