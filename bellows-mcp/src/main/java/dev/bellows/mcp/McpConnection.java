package dev.bellows.mcp;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.mcp.auth.McpAuthorization;
import dev.bellows.tool.ToolException;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One live session with one server: the SDK's {@link McpAsyncClient} over a transport, from
 * {@code initialize} to close. It is never reused after it ends; {@link McpToolSource} opens
 * a new one to restart a server.
 *
 * <p>Every wait here is bounded (the startup timeout, the call timeout) and ends early when
 * the connection ends (the process exited) or the caller cancels. Time spent waiting for a
 * person (logging in, answering a server's question) is not counted against those timeouts.
 * No lock is taken.
 */
final class McpConnection {

    /** How often a waiting call looks at its cancellation flag. */
    private static final long POLL_MILLIS = 50;
    /** Added to the SDK's own timeouts (only a backstop) when a person may be asked something. */
    private static final Duration PERSON_BACKSTOP = Duration.ofMinutes(30);

    private final McpServerConfig config;
    private final TrackingTransport transport;
    private final StdioTransport stdio;
    private final McpAsyncClient client;
    private final McpAuthorization authorization;
    private final ElicitationHandler elicitation;
    /** Time spent in the elicitation handler (a person answering), in nanoseconds. */
    private final AtomicLong elicitationNanos = new AtomicLong();
    /** Completes with why the connection is over; for HTTP, only when it is closed. */
    private final CompletableFuture<String> ended;
    private volatile List<McpSchema.Tool> tools = List.of();
    private volatile boolean closed;

    private McpConnection(McpServerConfig config, Map<String, String> env, Consumer<McpConnection> toolsChanged,
                          McpAuthorization authorization, ElicitationHandler elicitation,
                          java.util.function.Supplier<Map<String, String>> requestHeaders) {
        this.config = config;
        this.authorization = authorization;
        this.elicitation = elicitation;
        McpJsonMapper mapper = McpJsonDefaults.getMapper();
        McpClientTransport base;
        switch (config) {
            case McpServerConfig.Stdio stdioConfig -> {
                this.stdio = new StdioTransport(stdioConfig, mapper, env);
                this.ended = stdio.ended();
                base = stdio;
            }
            case McpServerConfig.StreamableHttp http -> {
                this.stdio = null;
                this.ended = new CompletableFuture<>();
                base = new StreamableHttpTransport(http, mapper, authorization, requestHeaders);
            }
        }
        this.transport = new TrackingTransport(base);
        boolean person = elicitation != ElicitationHandler.DECLINE && elicitation != ElicitationHandler.DEFAULTS
                || authorization != null && authorization.mayWaitForPerson();
        Duration backstop = Duration.ofSeconds(30).plus(person ? PERSON_BACKSTOP : Duration.ZERO);
        this.client = McpClient.async(transport)
                .clientInfo(new McpSchema.Implementation("bellows", Versions.bellows()))
                // Bellows' own timeouts end a wait first; the SDK's are only a backstop (longer
                // when a person may be asked: Bellows' own clocks stop meanwhile, the SDK's do not).
                .requestTimeout(config.callTimeout().plus(backstop))
                .initializationTimeout(config.startupTimeout().plus(backstop))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation(true, false).build())
                .elicitation(request -> Mono.fromCallable(() -> elicit(request)).subscribeOn(Schedulers.boundedElastic()))
                .toolsChangeConsumer(listed -> {
                    tools = List.copyOf(listed);
                    toolsChanged.accept(this);
                    return Mono.empty();
                })
                .build();
    }

    /**
     * Starts the server, initializes the session and lists the tools, within the startup timeout.
     *
     * @param env          Bellows' environment (a stdio server gets only a few of its variables)
     * @param toolsChanged told, on an SDK thread, when the server's tool list changed
     * @throws StartFailure with the reason when the server did not start; nothing is left running
     */
    static McpConnection open(McpServerConfig config, Map<String, String> env, Consumer<McpConnection> toolsChanged)
            throws StartFailure {
        return open(config, env, toolsChanged, null, ElicitationHandler.DECLINE);
    }

    /**
     * As {@link #open(McpServerConfig, Map, Consumer)}, with the server's authorization (null: none)
     * and who answers its questions.
     */
    static McpConnection open(McpServerConfig config, Map<String, String> env, Consumer<McpConnection> toolsChanged,
                              McpAuthorization authorization, ElicitationHandler elicitation) throws StartFailure {
        return open(config, env, toolsChanged, authorization, elicitation, Map::of);
    }

    /** As above, with headers of the caller's added to each HTTP request (a traceparent). */
    static McpConnection open(McpServerConfig config, Map<String, String> env, Consumer<McpConnection> toolsChanged,
                              McpAuthorization authorization, ElicitationHandler elicitation,
                              java.util.function.Supplier<Map<String, String>> requestHeaders) throws StartFailure {
        McpConnection connection = new McpConnection(config, env, toolsChanged, authorization, elicitation, requestHeaders);
        // A server without the tools capability has no tools: not an error, just nothing to list.
        CompletableFuture<List<McpSchema.Tool>> listing = connection.client.initialize()
                .flatMap(init -> init.capabilities() == null || init.capabilities().tools() == null
                        ? Mono.just(List.<McpSchema.Tool>of())
                        : connection.client.listTools().map(McpSchema.ListToolsResult::tools))
                .toFuture();
        try {
            connection.awaitStart(listing);
            if (!listing.isDone()) {
                throw connection.failed(connection.ended.getNow("it stopped"), null, connection.launchFailed());
            }
            connection.tools = List.copyOf(listing.get());
        } catch (TimeoutException e) {
            listing.cancel(true);
            throw connection.failed("it did not start and list its tools within " + seconds(config.startupTimeout())
                    + " (startup timeout)" + connection.stderrTail(), null, false);
        } catch (ExecutionException e) {
            boolean ended = connection.ended.isDone();
            String reason = ended ? connection.ended.getNow("") : Failures.describe(e.getCause(), config)
                    + connection.stderrTail();
            throw connection.failed(reason, e.getCause(), ended ? connection.launchFailed() : Failures.permanent(e.getCause()));
        } catch (InterruptedException e) {
            // Stopped with the flag clear, so that stopping waits for the processes to be gone.
            StartFailure failure = connection.failed("interrupted while it was starting", e, true);
            Thread.currentThread().interrupt();
            throw failure;
        }
        if (connection.stdio != null) {
            connection.stdio.rememberTree();
        }
        return connection;
    }

    /**
     * Waits for the listing (or the end of the connection) within the startup timeout, not
     * counting the time a person took to log in.
     */
    private void awaitStart(CompletableFuture<?> listing) throws InterruptedException, ExecutionException, TimeoutException {
        long waitedForPerson = personNanos();
        long deadline = System.nanoTime() + config.startupTimeout().toNanos();
        CompletableFuture<Object> either = CompletableFuture.anyOf(listing, ended);
        while (true) {
            long now = personNanos();
            deadline += now - waitedForPerson;
            waitedForPerson = now;
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            try {
                either.get(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                return;
            } catch (TimeoutException e) {
                // look at the person's time again
            }
        }
    }

    /** Time spent waiting for a person so far: logging in, answering the server's questions. */
    private long personNanos() {
        return elicitationNanos.get() + (authorization == null ? 0 : authorization.personWait().toNanos());
    }

    /** Answers the server's {@code elicitation/create} through the handler, adding the defaults of fields left out. */
    private McpSchema.ElicitResult elicit(McpSchema.ElicitFormRequest request) {
        ObjectNode schema = request.requestedSchema() == null ? null
                : ResultMapper.JSON.convertValue(request.requestedSchema(), ObjectNode.class);
        ElicitationRequest question = new ElicitationRequest(config.name(), request.message(), schema);
        long started = System.nanoTime();
        ElicitationResult answer;
        try {
            answer = elicitation.elicit(question);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer = new ElicitationResult.Cancel();
        } catch (RuntimeException e) {
            answer = new ElicitationResult.Decline();
        } finally {
            elicitationNanos.addAndGet(System.nanoTime() - started);
        }
        return switch (answer) {
            case ElicitationResult.Accept accept -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT,
                    ResultMapper.JSON.convertValue(question.withDefaults(accept.content()),
                            new TypeReference<Map<String, Object>>() { }));
            case ElicitationResult.Decline decline -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
            case ElicitationResult.Cancel cancel -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
            case null -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
        };
    }

    private StartFailure failed(String reason, Throwable cause, boolean permanent) {
        if (stdio != null) {
            stdio.shutdown(false); // it never finished starting: nothing to wait for
        }
        close();
        return new StartFailure(reason, cause, permanent);
    }

    private boolean launchFailed() {
        return stdio != null && stdio.launchFailed();
    }

    private String stderrTail() {
        return stdio == null || stdio.ended().isDone() ? "" : stdio.stderrSuffix();
    }

    /** The stderr tail of a stdio server, whether or not it still runs. */
    String stderrNow() {
        return stdio == null ? "" : stdio.stderrSuffix();
    }

    /** The tools as last listed (at start, or after {@code notifications/tools/list_changed}). */
    List<McpSchema.Tool> tools() {
        return tools;
    }

    /** Whether Bellows closed it (rather than the server going away). */
    boolean wasClosed() {
        return closed;
    }

    /** Whether the connection has ended: closed, or the server went away. */
    boolean isEnded() {
        return ended.isDone();
    }

    /** Completes with the reason the connection ended. */
    CompletableFuture<String> ended() {
        return ended;
    }

    /** The server's process (stdio only). */
    Optional<ProcessHandle> process() {
        return stdio == null ? Optional.empty() : stdio.process();
    }

    /**
     * Calls a tool and waits for its answer, at most the call timeout.
     *
     * @param cancelled polled while waiting; when true the call is cancelled
     * @throws ToolException    when the call fails, times out, is cancelled or the server goes
     *                          away; the message says which, for the model
     * @throws McpCallCancelled when the caller cancelled it
     */
    McpSchema.CallToolResult call(String tool, Map<String, Object> arguments, BooleanSupplier cancelled)
            throws ToolException, McpCallCancelled {
        String token = TrackingTransport.TOKEN_PREFIX + UUID.randomUUID();
        McpSchema.CallToolRequest request = new McpSchema.CallToolRequest.Builder()
                .name(tool)
                .arguments(arguments)
                .progressToken(token)
                .build();
        CompletableFuture<McpSchema.CallToolResult> answer = client.callTool(request).toFuture();
        long deadline = System.nanoTime() + config.callTimeout().toNanos();
        long waitedForPerson = personNanos();
        try {
            while (true) {
                long person = personNanos();
                deadline += person - waitedForPerson; // a person answering a question or logging in
                waitedForPerson = person;
                if (ended.isDone() && !answer.isDone()) {
                    answer.cancel(true);
                    throw new ToolException("MCP server \"" + config.name() + "\" stopped during the call: "
                            + ended.getNow("closed"));
                }
                if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                    cancel(answer, token, "cancelled by the user");
                    throw new McpCallCancelled();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    cancel(answer, token, "timed out");
                    throw new ToolException("MCP server \"" + config.name() + "\" did not answer the call within "
                            + seconds(config.callTimeout()) + " (call timeout); the call was cancelled");
                }
                try {
                    return answer.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // look at the flags again
                } catch (InterruptedException e) {
                    cancel(answer, token, "cancelled by the user");
                    Thread.currentThread().interrupt();
                    throw new McpCallCancelled();
                } catch (ExecutionException e) {
                    if (ended.isDone()) {
                        throw new ToolException("MCP server \"" + config.name() + "\" stopped during the call: "
                                + ended.getNow("closed"));
                    }
                    throw new ToolException(Failures.describe(e.getCause(), config), e.getCause());
                }
            }
        } finally {
            transport.forget(token);
        }
    }

    private void cancel(CompletableFuture<?> answer, String token, String reason) {
        transport.cancel(token, reason);
        answer.cancel(true);
    }

    /** Closes the session and stops the server, its children included. Idempotent; may block a few seconds. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            client.closeGracefully().block(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            // the server may already be gone; the transport is stopped below either way
        }
        if (stdio != null) {
            stdio.shutdown();
        } else {
            transport.close();
        }
        ended.complete("closed");
    }

    static String seconds(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /** A server that did not start, with why, and whether starting it again could help. */
    static final class StartFailure extends ToolException {

        private final boolean permanent;

        StartFailure(String reason, Throwable cause, boolean permanent) {
            super(reason, cause);
            this.permanent = permanent;
        }

        /** Another start would fail the same way: the command does not exist, the URL answers 404 ... */
        boolean permanent() {
            return permanent;
        }
    }

    /** The caller cancelled a call (Ctrl-C); not an error of the server's. */
    static final class McpCallCancelled extends Exception {
        McpCallCancelled() {
            super("the call was cancelled", null, false, false);
        }
    }
}
