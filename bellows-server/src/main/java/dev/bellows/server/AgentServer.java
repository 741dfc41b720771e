package dev.bellows.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ResumableAgent;
import dev.bellows.agent.Resumption;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.InMemoryMemoryStore;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.Message;
import dev.bellows.secret.Secrets;
import dev.bellows.tool.Tool;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * An agent over HTTP, independent of any HTTP server: give each request to {@link #handle}
 * through a {@link ServerExchange} (the Jetty adapter in {@code dev.bellows.server.jetty} does,
 * as does the Spring Boot starter). It serves
 * <ul>
 *   <li>{@code POST /agui}: AG-UI 1.x, a {@code RunAgentInput} in, a stream of AG-UI events out
 *       (Server-Sent Events); {@code threadId} names the conversation;</li>
 *   <li>{@code POST /v1/chat/completions} (and {@code GET /v1/models}): OpenAI's chat
 *       completions, streaming or not; the agent's final answer is the assistant's message;</li>
 *   <li>{@code GET /}: a chat page for people, with its script and style beside it;</li>
 *   <li>{@code GET /health}: {@code {"status": "ok"}}.</li>
 * </ul>
 *
 * <pre>{@code
 * AgentServer server = AgentServer.builder(agent)
 *         .sessionStore(SqliteSessionStore.open(directory))   // threads kept across restarts
 *         .authToken(System.getenv("BELLOWS_SERVE_TOKEN"))
 *         .build();
 * try (JettyAgentServer http = JettyAgentServer.start(server, "127.0.0.1", 8080)) {
 *     ...
 * }
 * }</pre>
 *
 * <h2>Calls that wait</h2>
 * A run that reaches a call needing approval (the agent's {@code requireApproval}) ends with
 * AG-UI's interrupt outcome, one interrupt per waiting call; the thread's next run answers them
 * in {@code resume}. The tools a client sends in {@code tools} are its own: a call of one ends
 * the run with the call pending, and the client's {@code tool} message carries it on. The
 * waiting run is kept in the session store, so any server of the store carries it on.
 * An agent that keeps its waiting runs itself ({@link ResumableAgent}, a remote agent whose
 * task asks a question) ends its run with an interrupt too, one per waiting call, each answered
 * with {@code {"result": TEXT}}; the thread keeps the agent's
 * {@linkplain ResumableAgent#waitingState waiting state}, and its next run
 * {@linkplain ResumableAgent#resume carries it on} with the answers.
 *
 * <h2>Threads, limits and access</h2>
 * A thread is a session of the session store, taken by one run at a time: a second run gets
 * 409 while the first goes on, on this server or another one sharing the store's database.
 * A body over {@link Builder#maxRequestBytes} gets 413, more than {@link Builder#maxRuns} runs
 * at once 429 with {@code Retry-After}, malformed input 400 with a JSON body naming the field.
 * Before its body is read, a request is refused with 403 when its {@code Host} is not a
 * loopback name or address, the address its connection arrived on or an
 * {@link Builder#allowHosts allowed host} (DNS rebinding), or when it carries an {@code Origin}
 * that is neither the server's own nor an {@link Builder#allowOrigins allowed origin} (a page of
 * another site); a POST to a JSON endpoint that is not {@code application/json} gets 415.
 * With an {@link Builder#authToken auth token}, every endpoint but the page and
 * {@code /health} needs {@code Authorization: Bearer TOKEN}. A client that goes away from a
 * stream cancels its run (model call and tools) within about a second, heartbeats telling it
 * even while nothing else is written (a non-streaming completion writes nothing before its run
 * ends, so that its status is the outcome's). A call that needs approval in a completion, which
 * has no thread to decide it on, is denied with a reason the model reads. The token and the {@link Builder#secrets secrets} given never appear
 * in any response.
 *
 * <p>Thread-safe: one instance serves any number of requests at once, each on the thread the
 * adapter calls {@link #handle} on (a virtual thread is best: a request waits as long as its run).
 */
public final class AgentServer {

    private static final System.Logger LOG = System.getLogger(AgentServer.class.getName());
    private static final ObjectMapper MAPPER = Jackson.JSON;
    /** The paths whose POST body is JSON: {@link Admission} refuses any other content type there. */
    private static final Set<String> JSON_BODIES = Set.of("/agui", "/v1/chat/completions", "/chat/completions");

    private final Agent agent;
    /** The agent when it keeps its waiting runs itself (its waiting state kept with the thread), else null. */
    private final ResumableAgent resumable;
    private final Threads threads;
    private final Function<MemoryStore, ConversationMemory> memory;
    private final long maxRequestBytes;
    private final int maxRuns;
    private final byte[] authToken;
    private final Redactor redactor;
    private final String modelName;
    private final Duration heartbeat;
    private final boolean nativeToolCalls;
    private final Semaphore runSlots;
    private final Set<AgentRun> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;
    private final Page page = Page.load();
    private final Admission admission;
    private final List<Endpoint> endpoints;

    private AgentServer(Builder builder) {
        this.agent = builder.agent;
        this.resumable = agent instanceof ResumableAgent kept ? kept : null;
        this.memory = builder.memory;
        this.threads = builder.sessionStore == null ? new Threads.InMemory(memory)
                : new Threads.Stored(builder.sessionStore, memory, settings(builder.agent));
        this.maxRequestBytes = builder.maxRequestBytes;
        this.maxRuns = builder.maxRuns;
        this.authToken = builder.authToken == null ? null : builder.authToken.getBytes(StandardCharsets.UTF_8);
        List<String> secrets = new ArrayList<>(builder.secrets);
        if (builder.authToken != null) {
            secrets.add(builder.authToken);
        }
        this.redactor = new Redactor(secrets);
        this.modelName = builder.modelName;
        this.heartbeat = builder.heartbeat;
        this.nativeToolCalls = agent instanceof DefaultAgent d && d.toolMode() == ToolMode.NATIVE;
        this.runSlots = new Semaphore(maxRuns);
        this.admission = new Admission(builder.allowedHosts, builder.allowedOrigins);
        this.endpoints = List.copyOf(builder.endpoints);
    }

    /** A server of {@code agent}; see {@link Builder} for the settings. */
    public static Builder builder(Agent agent) {
        return new Builder(Objects.requireNonNull(agent, "agent"));
    }

    /**
     * A server of {@link Builder#mount mounted endpoints} only, with no agent of its own: it
     * answers {@code /health} and its endpoints, behind the same gate (Host, Origin, token);
     * {@code /agui}, the completions and the page are not found.
     */
    public static Builder builder() {
        return new Builder(null);
    }

    /** The mounted endpoint that answers the path, or null. */
    private Endpoint endpointFor(String path) {
        for (Endpoint endpoint : endpoints) {
            if (endpoint.serves(path)) {
                return endpoint;
            }
        }
        return null;
    }

    /**
     * Answers one request, blocking until its response is complete (a run's stream included).
     * Never throws for anything a client sends: every failure is an answer.
     *
     * @throws IOException only when the response cannot be written (the client went away)
     */
    public void handle(ServerExchange exchange) throws IOException {
        BodyTracking tracked = new BodyTracking(exchange);
        ServerExchange answering = tracked;
        try {
            Endpoint endpoint = endpointFor(tracked.path());
            String corsOrigin = admission.admit(tracked, JSON_BODIES.contains(tracked.path())
                    || (endpoint != null && !endpoint.checksBodyType(tracked.path())));
            if (corsOrigin != null) {
                answering = Admission.withCors(tracked, corsOrigin);
            }
            if (tracked.method().equals("OPTIONS")) {
                send(answering, 204, Admission.preflightHeaders(), new byte[0]);
                return;
            }
            route(answering);
        } catch (HttpError error) {
            Map<String, String> headers = error.allHeaders();
            if (tracked.bodyLeftUnread()) {
                // Refused before its body was read (401, 404, 405, 413): the adapter's server may
                // close the connection rather than read the rest, and a client that was told
                // nothing would send its next request on a connection about to close.
                headers.put("Connection", "close");
            }
            send(answering, error.status, headers, error.body().toString());
        }
    }

    /** The exchange, noting whether its request body was read to the end. Confined to its request's thread. */
    private static final class BodyTracking extends ForwardingExchange {
        private final ServerExchange exchange;
        private boolean bodyEnded;

        BodyTracking(ServerExchange exchange) {
            super(exchange);
            this.exchange = exchange;
        }

        /** Whether the request has a body (by its headers) that was not read to its end. */
        boolean bodyLeftUnread() {
            long length = exchange.contentLength();
            boolean hasBody = length > 0 || (length < 0 && exchange.header("Transfer-Encoding").isPresent());
            return hasBody && !bodyEnded;
        }

        @Override
        public InputStream body() throws IOException {
            return new FilterInputStream(exchange.body()) {
                @Override
                public int read() throws IOException {
                    return ended(super.read());
                }

                @Override
                public int read(byte[] buffer, int offset, int length) throws IOException {
                    return length == 0 ? 0 : ended(super.read(buffer, offset, length));
                }

                private int ended(int read) {
                    if (read < 0) {
                        bodyEnded = true;
                    }
                    return read;
                }
            };
        }
    }

    /** How many runs are going on now. */
    public int runningRuns() {
        return running.size();
    }

    /**
     * Stops taking runs (new ones get 503), waits up to {@code grace} for those going on to end,
     * then cancels the rest and waits for them to end (their streams end with
     * {@code RUN_FINISHED}, outcome {@code cancelled}). A run that waits on calls is kept in the
     * session store (in memory without one) and carried on by the thread's next run, after a
     * restart too. Returns when no run is left and every request let in before has ended: one
     * whose run had not started yet has that run cancelled as it starts, and is waited for (so
     * that nothing it stores reaches a session store the caller closes next).
     */
    public void shutdown(Duration grace) {
        closing = true;
        long deadline = System.nanoTime() + grace.toNanos();
        while (requestsIn() && System.nanoTime() < deadline) {
            sleep();
        }
        running.forEach(AgentRun::cancel);
        while (requestsIn()) {
            sleep();
        }
    }

    /**
     * Whether a request holds a run slot: its run is going on, or about to start (the thread
     * being loaded from the store), or ending (its events written, its thread's state stored).
     */
    private boolean requestsIn() {
        return !running.isEmpty() || runSlots.availablePermits() < maxRuns;
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the runs end", e);
        }
    }

    // --- routing ---

    private void route(ServerExchange exchange) throws IOException, HttpError {
        String path = exchange.path();
        String method = exchange.method();
        if (agent == null && !path.equals("/health")) {
            mounted(exchange, path);
            return;
        }
        switch (path) {
            case "/", "/index.html" -> {
                requireMethod(method, path, "GET");
                Page.Asset asset = page.asset("index.html");
                send(exchange, 200, page.headers(asset), asset.bytes());
            }
            case "/app.js", "/app.css", "/favicon.svg" -> {
                requireMethod(method, path, "GET");
                Page.Asset asset = page.asset(path.substring(1));
                send(exchange, 200, page.headers(asset), asset.bytes());
            }
            case "/health" -> {
                requireMethod(method, path, "GET");
                send(exchange, 200, jsonHeaders(), "{\"status\":\"ok\"}");
            }
            case "/agui" -> {
                requireMethod(method, path, "POST");
                authorize(exchange);
                agui(exchange, readJson(exchange));
            }
            case "/v1/chat/completions", "/chat/completions" -> {
                requireMethod(method, path, "POST");
                authorize(exchange);
                completions(exchange, readJson(exchange));
            }
            case "/v1/models", "/models" -> {
                requireMethod(method, path, "GET");
                authorize(exchange);
                ObjectNode list = MAPPER.createObjectNode().put("object", "list");
                list.putArray("data").addObject().put("id", modelName).put("object", "model")
                        .put("created", 0).put("owned_by", "bellows");
                send(exchange, 200, jsonHeaders(), list.toString());
            }
            default -> mounted(exchange, path);
        }
    }

    /** The mounted endpoint's answer (after the token, when the path needs it), or 404. */
    private void mounted(ServerExchange exchange, String path) throws IOException, HttpError {
        Endpoint endpoint = endpointFor(path);
        if (endpoint == null) {
            throw HttpError.notFound(path);
        }
        if (!endpoint.open(path)) {
            authorize(exchange);
        }
        endpoint.handle(exchange);
    }

    private static void requireMethod(String method, String path, String allowed) throws HttpError {
        if (!method.equals(allowed) && !(allowed.equals("GET") && method.equals("HEAD"))) {
            throw HttpError.methodNotAllowed(method, path, allowed);
        }
    }

    private void authorize(ServerExchange exchange) throws HttpError {
        if (authToken == null) {
            return;
        }
        String header = exchange.header("Authorization").orElse("");
        byte[] given = header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8) : new byte[0];
        if (!MessageDigest.isEqual(given, authToken)) {     // in constant time
            throw HttpError.unauthorized();
        }
    }

    /** The body as JSON: 413 past the limit (told by Content-Length, or counted), 400 when not JSON. */
    private JsonNode readJson(ServerExchange exchange) throws IOException, HttpError {
        long declared = exchange.contentLength();
        if (declared > maxRequestBytes) {
            throw tooLarge();
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream((int) Math.max(declared, 256));
        try (InputStream in = exchange.body()) {
            byte[] buffer = new byte[8192];
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (body.size() + read > maxRequestBytes) {
                    throw tooLarge();
                }
                body.write(buffer, 0, read);
            }
        }
        if (body.size() == 0) {
            throw HttpError.badRequest("", "the body is empty: send a JSON object");
        }
        try {
            return MAPPER.readTree(body.toByteArray());
        } catch (JacksonException e) {
            // Past Jackson's limits (nesting, a number's length) the exception has no location.
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            throw HttpError.badRequest("", "the body is not valid JSON: " + e.getOriginalMessage() + where);
        }
    }

    private HttpError tooLarge() {
        return HttpError.of(413, "invalid_request_error", "the body is larger than this server takes ("
                + maxRequestBytes + " bytes)");
    }

    /** A run slot and a place in the set of running runs: 503 when closing, 429 when full. */
    private void acquireSlot() throws HttpError {
        if (closing) {
            throw HttpError.of(503, "service_unavailable", "the server is shutting down and takes no new run");
        }
        if (!runSlots.tryAcquire()) {
            throw HttpError.tooManyRuns(maxRuns);
        }
    }

    // --- AG-UI ---

    private void agui(ServerExchange exchange, JsonNode body) throws IOException, HttpError {
        AguiInput input = AguiInput.parse(body);
        acquireSlot();
        try (Threads.Lease lease = threads.take(input.threadId())) {
            Session session = lease.session();
            Threads.Pending pending = lease.pending();
            Threads.KeptRun kept = resumable != null && pending != null ? pending.kept() : null;
            List<WaitingCall> waiting = kept != null ? kept.waiting() : session.waiting();
            AguiTurn turn = null;
            List<Decision> decisions = null;
            if (cutShort(session)) {
                AguiTurn newTurn = input.resume().isEmpty() ? newTurn(input, lease.knownIds()) : null;
                if (newTurn == null) {
                    decisions = List.of();      // carried on: the decisions given before stand
                } else {
                    giveUp(session, input.threadId());
                    turn = newTurn;
                }
            } else if (waiting.isEmpty()) {
                if (!input.resume().isEmpty()) {
                    AguiInput.Resume first = input.resume().get(0);
                    throw HttpError.badRequest("resume[" + first.index() + "].interruptId", "no interrupt \""
                            + first.interruptId() + "\" waits on thread \"" + input.threadId() + "\"");
                }
                turn = AguiTurn.of(input, lease.knownIds());
            } else {
                decisions = AguiResume.decisions(input, waiting, lease.knownIds());
            }
            int turnsBefore = session.memory().turns().size();
            // A resumed run numbers its calls as the run it carries on did (from that run's start).
            int numbering = decisions != null && pending != null ? pending.turnsAtStart() : turnsBefore;
            // The run starts before the response, so that client tools it refuses are a 400; its
            // events wait for the stream (a subscriber gets every event from the first).
            List<Tool> clientTools = ClientTools.of(input.tools());
            // The plan the thread has before this run: once started, the run may replace it
            // before RUN_STARTED is sent, and that change reaches the client as the run's event.
            List<PlanStep> planBefore = session.plan().steps();
            AgentRun starting = null;
            String refused = null;
            try {
                starting = decisions == null ? startRun(turn.task(), session, clientTools)
                        : kept != null ? resumeKept(session, decisions, clientTools, lease, pending)
                        : resumeRun(session, decisions, clientTools);
            } catch (IllegalArgumentException e) {
                // refused before anything ran: the client's tools, or (on resume) edited arguments
                if (!clientTools.isEmpty() && String.valueOf(e.getMessage()).contains("external tool")) {
                    throw HttpError.badRequest(toolField(input, e.getMessage()), e.getMessage());
                }
                if (e instanceof dev.bellows.agent.MissingToolException missing) {
                    throw HttpError.badRequest(resumeField(input, missing.callId()), e.getMessage());
                }
                if (decisions != null) {
                    throw HttpError.badRequest("resume", e.getMessage());
                }
                refused = (decisions == null ? "the agent could not start the run: "
                        : "the waiting run could not be carried on: ") + e.getMessage();
            } catch (RuntimeException e) {
                refused = (decisions == null ? "the agent could not start the run: "
                        : "the waiting run could not be carried on: ") + e.getMessage();
            }
            AguiEvents events;
            SseWriter sse;
            try {
                sse = new SseWriter(exchange.respond(200, sseHeaders()), redactor);
                events = new AguiEvents(input.threadId(), input.runId(), nativeToolCalls, numbering, sse::data);
                if (resumable != null) {
                    events.askEveryWait();      // none of its waits is one of the client's own tools
                }
                events.started(planBefore);
                if (refused != null) {
                    events.error(refused, "error");
                    return;
                }
            } catch (IOException | RuntimeException e) {
                if (starting != null) {       // the client went away before the stream began
                    starting.cancel();
                    RunPump.awaitQuietly(starting);
                    running.remove(starting);
                }
                throw e;
            }
            if (decisions != null) {
                events.resumed(pending != null ? pending.calls() : decisions.stream().map(Decision::callId).toList());
            }
            AgentRun run = starting;
            dev.bellows.agent.AgentListener subAgents = lease.subAgents();
            boolean stayed;
            try {
                stayed = RunPump.pump(run, new RunPump.Output() {
                    @Override
                    public void event(AgentEvent event) throws IOException {
                        subAgents.onEvent(event);
                        events.on(event);
                        if (event instanceof LoopEvent.LoopEnd end && end.reason() == LoopEndReason.INTERRUPTED) {
                            events.interrupted(run.await().waiting());
                        }
                    }

                    @Override
                    public void heartbeat() throws IOException {
                        sse.heartbeat();
                    }

                    @Override
                    public long idleNanos() {
                        return sse.idleNanos();
                    }
                }, heartbeat);
            } finally {
                running.remove(run);
            }
            List<String> taken = turn != null ? turn.ids() : AguiResume.ids(input, waiting);
            try {
                Threads.KeptRun keptNext = keptRun(run, session, input.threadId());
                boolean waits = keptNext != null || !session.waiting().isEmpty() || cutShort(session);
                if (session.memory().turns().size() > turnsBefore || decisions != null || waits || pending != null) {
                    lease.remember(taken, waits ? new Threads.Pending(events.turnsAtStart(), events.unanswered(),
                            keptNext) : null);
                }
            } catch (SessionStoreException | IllegalStateException e) {
                LOG.log(System.Logger.Level.WARNING, () -> "thread " + input.threadId() + ": the ids of the messages"
                        + " taken could not be stored; a client that sends them again has them answered again", e);
            }
            if (!stayed) {
                LOG.log(System.Logger.Level.DEBUG, () -> "thread " + input.threadId() + ": the client went away;"
                        + " its run was cancelled");
            }
        } finally {
            runSlots.release();
        }
    }

    /**
     * Whether the thread's waiting run has every call decided already: a resume of it was cut
     * short while its approved calls ran (its client went away, the server was stopped, the
     * process died). Nothing waits for a person, yet the session takes no new task until the run
     * is carried on or given up.
     */
    private boolean cutShort(Session session) {
        if (!(agent instanceof DefaultAgent) || !session.waiting().isEmpty()) {
            return false;
        }
        try {
            return session.hasWaitingRun();     // a run waits with nothing left to decide
        } catch (IllegalStateException e) {
            return false;   // a damaged one: the run's start says so
        }
    }

    /** The input's new user messages as a task, or null when it has none. */
    private static AguiTurn newTurn(AguiInput input, Set<String> known) {
        try {
            return AguiTurn.of(input, known);
        } catch (HttpError none) {
            return null;
        }
    }

    /**
     * Gives up a cut-short run before the thread's new task, as the person who stopped it (or
     * restarted the server) moved on: no call runs again, a call that had started is kept in the
     * conversation with its outcome unknown (the model reads that with the new task), the calls
     * held behind it do not run.
     */
    private void giveUp(Session session, String threadId) throws HttpError {
        try {
            ((DefaultAgent) agent).cancelWaiting(session, "the run was stopped before this call ran");
        } catch (RuntimeException e) {
            throw HttpError.of(503, "service_unavailable", "thread \"" + threadId + "\": its run cut short while"
                    + " its approved calls ran could not be given up for the new message: " + e.getMessage());
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "thread " + threadId + ": the run cut short while its approved calls"
                + " ran was given up for the thread's new message");
    }

    /**
     * Starts the run, with the client's tools when there are any.
     *
     * @throws IllegalArgumentException when the agent refuses the client's tools (a name it has)
     * @throws RuntimeException         when the agent refuses the run
     */
    private AgentRun startRun(String task, Session session, List<Tool> clientTools) {
        AgentRun run;
        if (clientTools.isEmpty()) {
            run = agent.run(task, session);
        } else if (agent instanceof DefaultAgent external) {
            run = external.run(task, session, clientTools);
        } else {
            throw new IllegalArgumentException("this agent cannot offer the client's tools (it is not a DefaultAgent,"
                    + " which takes external tools): send no tools");
        }
        return started(run);
    }

    /** The model and tool mode a thread's session records, as {@code bellows run --session} records them. */
    private static Map<String, String> settings(Agent agent) {
        if (!(agent instanceof DefaultAgent loop) || loop.model() == null) {
            return Map.of();
        }
        return Map.of(dev.bellows.memory.StoredSession.MODEL, loop.model(), dev.bellows.memory.StoredSession.TOOL_MODE,
                loop.toolMode().name().toLowerCase(java.util.Locale.ROOT));
    }

    /** The {@code resume} entry that answers call {@code id} ({@code resume[i]}), or {@code resume} when none does. */
    private static String resumeField(AguiInput input, String id) {
        return input.resume().stream().filter(entry -> entry.interruptId().equals(id)).findFirst()
                .map(entry -> "resume[" + entry.index() + "]").orElse("resume");
    }

    /**
     * What the thread keeps of {@code run} when the agent keeps its waiting runs itself and the
     * run stopped waiting; else null.
     */
    private Threads.KeptRun keptRun(AgentRun run, Session session, String threadId) {
        if (resumable == null) {
            return null;
        }
        AgentResult result = run.await();       // ended: the pump has seen its last event
        if (result.reason() != LoopEndReason.INTERRUPTED || result.waiting().isEmpty()) {
            return null;
        }
        try {
            return new Threads.KeptRun(resumable.waitingState(result, session), result.waiting(), List.of());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, () -> "thread " + threadId + ": the agent gave no state to carry its"
                    + " waiting run on; the thread's next message starts anew", e);
            return null;
        }
    }

    /**
     * Carries on the waiting run of an agent that keeps its own ({@link ResumableAgent}) with the
     * client's answers: what it {@linkplain Resumption#note notes} (an answer about to be sent)
     * is kept with the thread at once, so that a resume cut short and asked again does not do
     * it twice.
     */
    private AgentRun resumeKept(Session session, List<Decision> decisions, List<Tool> clientTools,
                                Threads.Lease lease, Threads.Pending pending) {
        if (!clientTools.isEmpty()) {
            throw new IllegalArgumentException("this agent cannot offer the client's tools (it is not a DefaultAgent,"
                    + " which takes external tools): send no tools");
        }
        java.util.concurrent.atomic.AtomicReference<Threads.KeptRun> kept =
                new java.util.concurrent.atomic.AtomicReference<>(pending.kept());
        return started(resumable.resume(new Resumption() {
            @Override
            public JsonNode state() {
                return pending.kept().state();
            }

            @Override
            public List<Decision> decisions() {
                return decisions;
            }

            @Override
            public List<JsonNode> notes() {
                return pending.kept().notes();
            }

            @Override
            public void note(JsonNode note) {
                Threads.KeptRun noted = kept.updateAndGet(run -> run.noting(note));
                lease.remember(List.of(), new Threads.Pending(pending.turnsAtStart(), pending.calls(), noted));
            }
        }, session));
    }

    /** Carries a waiting run on with the client's answers (and its tools, which a later call may use). */
    private AgentRun resumeRun(Session session, List<Decision> decisions, List<Tool> clientTools) {
        if (!(agent instanceof DefaultAgent resumable)) {
            throw new IllegalStateException("this agent cannot carry a waiting run on (it is not a DefaultAgent)");
        }
        return started(resumable.resume(session, decisions, clientTools));
    }

    /**
     * Counts the run as running, and cancels it when the server began shutting down since its
     * request took its slot: {@link #shutdown} set {@code closing} before it cancelled what it
     * found running, so a run added after that is cancelled here, never left to go on.
     */
    private AgentRun started(AgentRun run) {
        running.add(run);
        if (closing) {
            run.cancel();
        }
        return run;
    }

    /** The field of the client tool a refusal names ({@code tools[2].name}), else {@code tools}. */
    private static String toolField(AguiInput input, String message) {
        for (int i = 0; i < input.tools().size(); i++) {
            if (message != null && message.contains("\"" + input.tools().get(i).name() + "\"")) {
                return "tools[" + i + "].name";
            }
        }
        return "tools";
    }

    // --- OpenAI chat completions ---

    private void completions(ServerExchange exchange, JsonNode body) throws IOException, HttpError {
        CompletionInput input = CompletionInput.parse(body);
        acquireSlot();
        try {
            ConversationMemory conversation = memory.apply(new InMemoryMemoryStore());
            for (List<Message> turn : input.history()) {
                conversation.addTurn(turn);
            }
            Session session = new Session(conversation);
            String id = "chatcmpl-" + UUID.randomUUID().toString().replace("-", "");
            long created = System.currentTimeMillis() / 1000;
            String model = input.model() == null ? modelName : input.model();
            if (input.stream()) {
                streamCompletion(exchange, input.task(), session, new CompletionChunks(id, created, model));
            } else {
                jsonCompletion(exchange, input.task(), session, new CompletionChunks(id, created, model));
            }
        } finally {
            runSlots.release();
        }
    }

    /**
     * What the model reads for a call that needs a person's approval in a completion: there is
     * no thread to carry the run on, so nobody could ever decide it, and it is denied at once.
     */
    static final String NO_APPROVAL_HERE = "this tool needs a person's approval, which an OpenAI-compatible chat"
            + " completion cannot ask for (it has no thread to carry the run on): it was not run. Go on without it,"
            + " or say that it needs the AG-UI endpoint (/agui), where a person can approve it";
    /** What the model reads for a call that waits for a result from outside the run, in a completion. */
    static final String NO_OUTSIDE_RESULT_HERE = "this call waits for a result from outside the run, which an"
            + " OpenAI-compatible chat completion cannot give: it was not carried out";

    /** Starts a completion's run: refused (thrown) before anything is sent. */
    private AgentRun startCompletion(String task, Session session) {
        return started(agent.run(task, session));
    }

    /**
     * Carries a completion's run on past the calls it stopped at, each denied with a reason the
     * model reads ({@link #NO_APPROVAL_HERE}), since a completion cannot wait for a decision.
     *
     * @throws RuntimeException when the agent cannot carry it on (it is not a DefaultAgent)
     */
    private AgentRun denyWaiting(Session session, List<WaitingCall> waiting) {
        if (!(agent instanceof DefaultAgent resumable)) {
            throw new IllegalStateException("the run stopped at calls waiting for a decision, which a chat completion"
                    + " cannot take, and this agent cannot carry it on");
        }
        List<Decision> denials = waiting.stream().<Decision>map(call -> Decision.deny(call.id(),
                call.kind() == WaitingCall.Kind.APPROVAL ? NO_APPROVAL_HERE : NO_OUTSIDE_RESULT_HERE)).toList();
        return started(resumable.resume(session, denials));
    }

    /**
     * A streamed completion: a run the agent refuses is an HTTP error; once the status is sent,
     * a failure is an {@code error} event ({@code data: {"error": {...}}}), as OpenAI streams
     * one.
     */
    private void streamCompletion(ServerExchange exchange, String task, Session session, CompletionChunks chunks)
            throws IOException {
        AgentRun run;
        try {
            run = startCompletion(task, session);
        } catch (RuntimeException e) {
            send(exchange, 500, jsonHeaders(), CompletionChunks.error("the agent could not start the run: "
                    + e.getMessage(), "server_error"));
            return;
        }
        SseWriter sse;
        try {
            sse = new SseWriter(exchange.respond(200, sseHeaders()), redactor);
            sse.data(chunks.role());
        } catch (IOException | RuntimeException e) {
            run.cancel();       // the client went away before the stream began
            RunPump.awaitQuietly(run);
            running.remove(run);
            throw e;
        }
        // the reasoning_content deltas make one text for the client: a secret may span two of them
        Secrets.Streaming reasoning = Secrets.streaming();
        RunPump.Output output = new RunPump.Output() {
            @Override
            public void event(AgentEvent event) throws IOException {
                switch (event) {
                    case StreamEvent.ThinkingContent e -> reasoning(reasoning.next(e.content()));
                    case LoopEvent.LoopEnd e -> {
                        if (e.reason() == LoopEndReason.INTERRUPTED) {
                            return;     // its waiting calls are denied, and the run goes on
                        }
                        reasoning(reasoning.flush());
                        if (e.reason().successful()) {
                            sse.data(chunks.content(e.result()));
                            sse.data(chunks.finish("stop"));
                            sse.data("[DONE]");
                        } else if (e.reason() == LoopEndReason.MAX_ITERATIONS) {
                            sse.data(chunks.content(e.result()));
                            sse.data(chunks.finish("length"));
                            sse.data("[DONE]");
                        } else {
                            sse.data(CompletionChunks.error(e.result(), e.reason().wireName()));
                        }
                    }
                    default -> { }
                }
            }

            private void reasoning(String delta) throws IOException {
                if (!delta.isEmpty()) {
                    sse.data(chunks.reasoning(delta));
                }
            }

            @Override
            public void heartbeat() throws IOException {
                sse.heartbeat();
            }

            @Override
            public long idleNanos() {
                return sse.idleNanos();
            }
        };
        while (true) {
            boolean stayed;
            try {
                stayed = RunPump.pump(run, output, heartbeat);
            } finally {
                running.remove(run);
            }
            AgentResult result = run.await();
            if (!stayed || result.reason() != LoopEndReason.INTERRUPTED) {
                return;
            }
            try {
                run = denyWaiting(session, result.waiting());
            } catch (RuntimeException e) {
                sse.data(CompletionChunks.error("the run could not go on: " + e.getMessage(), "server_error"));
                return;
            }
        }
    }

    /**
     * A non-streaming completion: nothing is sent until the run ends, so that its status is the
     * outcome's (200 with the answer, or an HTTP error with OpenAI's error body). A client that
     * goes away meanwhile is not noticed before then (nothing is written to notice it by).
     */
    private void jsonCompletion(ServerExchange exchange, String task, Session session, CompletionChunks chunks)
            throws IOException {
        AgentResult result;
        try {
            AgentRun run = startCompletion(task, session);
            while (true) {
                try {
                    RunPump.awaitQuietly(run);
                } finally {
                    running.remove(run);
                }
                result = run.await();
                if (result.reason() != LoopEndReason.INTERRUPTED) {
                    break;
                }
                run = denyWaiting(session, result.waiting());
            }
        } catch (RuntimeException e) {
            send(exchange, 500, jsonHeaders(), CompletionChunks.error("the agent could not run the task: "
                    + e.getMessage(), "server_error"));
            return;
        }
        if (result.reason().successful() || result.reason() == LoopEndReason.MAX_ITERATIONS) {
            send(exchange, 200, jsonHeaders(), chunks.completion(result.result(),
                    result.reason().successful() ? "stop" : "length"));
        } else {
            int status = switch (result.reason()) {
                case ERROR -> 502;
                case CANCELLED -> 503;
                default -> 500;
            };
            send(exchange, status, jsonHeaders(), CompletionChunks.error(result.result(), result.reason().wireName()));
        }
    }

    // --- responses ---

    private void send(ServerExchange exchange, int status, Map<String, String> headers, String body) throws IOException {
        send(exchange, status, headers, redactor.apply(body).getBytes(StandardCharsets.UTF_8));
    }

    private static void send(ServerExchange exchange, int status, Map<String, String> headers, byte[] body)
            throws IOException {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Content-Length", Integer.toString(body.length));
        all.putIfAbsent("Cache-Control", "no-store");
        try (OutputStream out = exchange.respond(status, all)) {
            if (!exchange.method().equals("HEAD")) {
                out.write(body);
            }
        }
    }

    private static Map<String, String> jsonHeaders() {
        return Map.of("Content-Type", "application/json");
    }

    private static Map<String, String> sseHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "text/event-stream; charset=utf-8");
        headers.put("Cache-Control", "no-cache, no-store");
        headers.put("X-Accel-Buffering", "no");     // proxies such as nginx: pass each event on at once
        return headers;
    }

    /**
     * The settings of an {@link AgentServer}. Only the agent is required; without a session
     * store, threads live in this process.
     */
    public static final class Builder {

        private final Agent agent;
        private SessionStore sessionStore;
        private Function<MemoryStore, ConversationMemory> memory = store -> ConversationMemory.builder().store(store).build();
        private long maxRequestBytes = 1024 * 1024;
        private int maxRuns = 32;
        private String authToken;
        private final List<String> secrets = new ArrayList<>();
        private String modelName = "bellows";
        private Duration heartbeat = Duration.ofMillis(250);
        private final List<String> allowedHosts = new ArrayList<>();
        private final List<String> allowedOrigins = new ArrayList<>();
        private final List<Endpoint> endpoints = new ArrayList<>();

        private Builder(Agent agent) {
            this.agent = agent;
        }

        /**
         * Serves more endpoints behind this server's gate (see {@link Endpoint}); the server's
         * own paths come first, then the endpoints in the order mounted.
         */
        public Builder mount(Endpoint endpoint) {
            endpoints.add(Objects.requireNonNull(endpoint, "endpoint"));
            return this;
        }

        /**
         * Where threads are kept: each AG-UI {@code threadId} is the session of that name,
         * opened for one run at a time ({@link SessionStore#openExclusive}). The store stays
         * the caller's to close, after the server.
         */
        public Builder sessionStore(SessionStore sessionStore) {
            this.sessionStore = Objects.requireNonNull(sessionStore, "sessionStore");
            return this;
        }

        /**
         * How a conversation's memory is made over its store (its limits, its token counter);
         * default {@code ConversationMemory.builder().store(store).build()}.
         */
        public Builder memory(Function<MemoryStore, ConversationMemory> memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /** The largest request body taken (default 1 MiB); larger ones get 413. */
        public Builder maxRequestBytes(long maxRequestBytes) {
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be at least 1, got " + maxRequestBytes);
            }
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        /** The most runs at once (default 32); more get 429 with {@code Retry-After}. */
        public Builder maxRuns(int maxRuns) {
            if (maxRuns < 1) {
                throw new IllegalArgumentException("maxRuns must be at least 1, got " + maxRuns);
            }
            this.maxRuns = maxRuns;
            return this;
        }

        /**
         * The bearer token every endpoint but the page and {@code /health} asks for; null (the
         * default) for none. It never appears in a response.
         */
        public Builder authToken(String authToken) {
            if (authToken != null && authToken.isBlank()) {
                throw new IllegalArgumentException("the auth token is blank: give a token, or none");
            }
            this.authToken = authToken;
            return this;
        }

        /** Texts never to appear in a response (the model's API key, say): each becomes {@code [REDACTED]}. */
        public Builder secrets(List<String> secrets) {
            secrets.forEach(secret -> this.secrets.add(Objects.requireNonNull(secret, "secret")));
            return this;
        }

        /** The model name {@code /v1/models} lists and completions carry when the request names none (default {@code bellows}). */
        public Builder modelName(String modelName) {
            this.modelName = Objects.requireNonNull(modelName, "modelName");
            return this;
        }

        /**
         * How long a stream may go without a write before a heartbeat is sent (default 250 ms):
         * a client that went away is noticed on the second write after it left.
         */
        public Builder heartbeat(Duration heartbeat) {
            if (heartbeat.isNegative() || heartbeat.isZero()) {
                throw new IllegalArgumentException("the heartbeat interval must be positive, got " + heartbeat);
            }
            this.heartbeat = heartbeat;
            return this;
        }

        /**
         * Host names or addresses (no port) answered besides loopback ones and the address a
         * connection arrived on: the names clients reach this server by (a server listening on a
         * name, one behind a proxy). Any other {@code Host} gets 403, so a page that reaches the
         * server through a name of its own (DNS rebinding) is refused.
         *
         * @throws IllegalArgumentException for a value that is not a host
         */
        public Builder allowHosts(List<String> hosts) {
            hosts.forEach(host -> allowedHosts.add(Admission.host(Objects.requireNonNull(host, "host"))));
            return this;
        }

        /**
         * Origins ({@code https://app.example.com}) whose pages may call this server besides its
         * own pages; they get CORS answers (preflights included). A request with any other
         * {@code Origin} gets 403 before its body is read. {@code *} allows every origin and is
         * taken only with an {@link #authToken auth token}, which a page cannot learn.
         *
         * @throws IllegalArgumentException for a value that is not an origin
         */
        public Builder allowOrigins(List<String> origins) {
            origins.forEach(origin -> {
                Objects.requireNonNull(origin, "origin");
                allowedOrigins.add(origin.strip().equals("*") ? "*" : Admission.origin(origin));
            });
            return this;
        }

        /** @throws IllegalArgumentException when every origin is allowed ({@code *}) with no auth token */
        public AgentServer build() {
            if (allowedOrigins.contains("*") && authToken == null) {
                throw new IllegalArgumentException("allowing every origin (*) needs an auth token: without one, any"
                        + " web page could run the agent; name the origins instead");
            }
            return new AgentServer(this);
        }
    }
}
