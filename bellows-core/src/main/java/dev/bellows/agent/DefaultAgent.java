package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import dev.bellows.tool.JsonSchemas;
import dev.bellows.provider.Message;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;

/**
 * The agent loop of the CLI spec ("The agent loop"), or, without a tool registry, a plain
 * streaming chat.
 *
 * <pre>{@code
 * DefaultAgent agent = DefaultAgent.builder()
 *         .provider(provider)
 *         .model("gpt-4o-mini")
 *         .instructions("You help with the files in this folder.")
 *         .toolRegistry(new ToolRegistry().register(readFile))
 *         .listener(event -> System.out.println(EventJson.toJson(event, false)))
 *         .build();
 * AgentResult result = agent.run("What does notes.txt say?").await();
 * }</pre>
 *
 * <h2>The loop</h2>
 * Each iteration (at most {@link AgentBuilder#maxIterations}) emits {@code iteration_start}, sends
 * the conversation to the model (system message, history from memory, then the current turn
 * with the plan, as the prompt builder assembles them), and streams the answer through a
 * {@link dev.bellows.stream.StreamProcessor}: every stream event reaches the listeners as it
 * happens, except {@code complete}. Then:
 * <ul>
 *   <li>tool calls run in order through a {@link dev.bellows.tool.chain.ToolChain}; each gives a
 *       {@code tool_result} or a {@code tool_result_error} event, and the observation of them
 *       all is the next user message. What a result does to the loop is its
 *       {@linkplain dev.bellows.tool.ToolEffect effect}: {@code update_plan}'s replaces the plan
 *       and emits {@code plan_update} (the plan goes into every later prompt);
 *       {@code task_completion}'s, {@code ask_question}'s, {@code converse}'s (or a tool of
 *       your own's) ends the loop with its text as the result;</li>
 *   <li>no tool call: {@code no_tool_call}, and the prompt builder's reminder is the next user
 *       message.</li>
 * </ul>
 * Undecodable calls, unknown tools, bad arguments, failing tools and answers without a tool
 * call are errors; a successful call resets their count. Calls are counted in order, and
 * after each iteration a count of {@link AgentBuilder#maxConsecutiveErrors} ends the loop
 * ({@code circuit_breaker}); else reaching {@link AgentBuilder#maxIterations} does
 * ({@code max_iterations}). A loop-breaking call wins over both.
 *
 * <h2>Tool modes</h2>
 * How the model calls tools is the {@link ToolMode}: tags (the default, described here), the
 * API's own tool calls ({@link ToolMode#NATIVE}), or ReAct sections ({@link ReActAgent} is that
 * preset). The loop above is the same for all three; only the prompts and the reading of each
 * answer differ, and each answer is read while it streams.
 *
 * <h2>Sessions and memory</h2>
 * A run's conversation lives in the {@link Session} it is given ({@link #run(String, Session)}):
 * one agent serves any number of sessions at once, each one run at a time. {@link #run(String)}
 * uses the builder's {@link AgentBuilder#memory memory} when one was given (the agent's own
 * session, across runs, so that it is also the next message of a chat, one run at a time);
 * without one, each {@code run(task)} has a fresh session of its own: the conversation belongs
 * to the memory or session a run is given, not to the agent. Each answer goes in verbatim (tags
 * included), in one turn with the observation or reminder that follows it; the task joins the
 * first turn of its run. What a failed or cancelled model call produced never reaches memory,
 * nor does an iteration cancelled while its tools ran.
 *
 * <p>Each call sends the newest whole turns that fit the memory's limits, with the system
 * message and the current turn reserved ({@link ConversationMemory#turnsWithin}). When the
 * run's first turn no longer fits, its task is still sent, first: the model keeps its goal and
 * the conversation starts with a user message; the turns of an earlier run are cut only where
 * one starts with a user message.
 *
 * <h2>Failures</h2>
 * The provider is wrapped in a {@link dev.bellows.provider.RetryingProvider} with the {@link AgentBuilder#retryPolicy}
 * (a {@code RetryingProvider} given as the provider is used as it is). Each retry emits
 * {@code retry}, and what the broken attempt streamed is dropped: a new stream processor
 * starts the answer afresh. A non-retryable failure or exhausted retries end the loop
 * ({@code error}, the result is the provider's message). Any exception inside the loop ends
 * it the same way: {@code loop_start} and {@code loop_end} come exactly once, whatever
 * happens.
 *
 * <h2>Interceptors and approvals</h2>
 * {@link RunInterceptor}s, {@link ModelInterceptor}s and {@link ToolInterceptor}s registered on
 * the builder wrap every run, every model request (each attempt) and every tool call that runs;
 * without any, nothing of them is made. A tool interceptor may suspend a call: the run then
 * stops {@code interrupted} with the calls that wait ({@link AgentResult#waiting()}, also
 * {@link Session#waiting()}), and {@link #resume} carries it on with a {@link Decision} for
 * each. See docs/interceptors.md.
 *
 * <h2>Plain chat</h2>
 * Without a tool registry there is no loop: each run is one model call (the instructions
 * as the system message, if any, then the history, then the task) and ends
 * {@code converse} with the answer's message text (thinking left out) as the result. Its
 * events are {@code loop_start}, {@code iteration_start} 1, the stream events (and any
 * {@code retry}), {@code loop_end}.
 *
 * <h2>Threads</h2>
 * A run goes on on its own thread (a new virtual thread unless an {@link AgentBuilder#executor} is
 * given); listeners are called on it. Without an executor of yours, a caller of
 * {@link AgentRun#await()} that comes before that thread has begun the run goes through the
 * loop itself, on its own thread, instead of waiting for another (the same events, in the same
 * order; it saves a thread switch at every streamed piece). Interrupting that thread then
 * reaches the run as it reaches a tool or the model call, instead of ending the wait. That
 * race is not always won; {@link #runBlocking(String)} runs the loop on the calling thread
 * always, with the same events, for a caller that would only wait. Runs of different sessions go on at the same time; a
 * session takes one run at a time. Building an agent changes nothing it is given: the
 * built-ins are offered beside the registry's tools, not registered into it.
 */
public final class DefaultAgent implements Agent {

    /** The default iteration limit, as the CLI's {@code --max-iterations}. */
    public static final int DEFAULT_MAX_ITERATIONS = AgentBuilder.DEFAULT_MAX_ITERATIONS;
    /** The default limit of consecutive errors, as the CLI's {@code --max-consecutive-errors}. */
    public static final int DEFAULT_MAX_CONSECUTIVE_ERRORS = AgentBuilder.DEFAULT_MAX_CONSECUTIVE_ERRORS;

    final AgentOptions options;
    final Protocol protocol;
    /** The session of the builder's memory, which {@code run(task)} continues; null without one. */
    private final Session session;
    /** What {@link #session()} shows when there is no builder memory: never run in. */
    private final Session own;

    DefaultAgent(AgentOptions options) {
        this.options = options;
        this.protocol = switch (options.toolMode) {
            case TAGS -> new TagProtocol(options);
            case REACT -> new ReActProtocol(options);
            case NATIVE -> new NativeProtocol(options);
        };
        this.session = options.memory != null ? new Session(options.memory) : null;
        this.own = session != null ? session : new Session();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a run and returns its handle at once: in the session of the builder's memory when
     * one was given, else in a fresh session of its own (pass a {@link Session} to
     * {@link #run(String, Session)} to continue a conversation).
     *
     * @throws IllegalStateException when the builder's memory is given and a run of it is still
     *                               going on: await or cancel it first, or use {@link #run(String, Session)}
     */
    @Override
    public AgentRun run(String task) {
        return run(task, runSession());
    }

    /** The builder memory's session, or a fresh one for this run alone. */
    private Session runSession() {
        return session != null ? session : new Session();
    }

    /**
     * Starts a run in {@code session} (its memory and plan) and returns its handle at once.
     *
     * @throws IllegalStateException when a run of that session is still going on
     */
    @Override
    public AgentRun run(String task, Session session) {
        return start(task, session, options.answerSchema == null ? null : new TypedCompletion(options.answerSchema, null));
    }

    /**
     * Starts a run in {@code session}, as {@link #run(String, Session)}, that offers the model
     * {@code external} tools beside the agent's, for this run only: tools carried out outside
     * the run, by its caller (the client of a server, say: AG-UI's front-end tools). A call of
     * one is never run here: it waits ({@link WaitingCall.Kind#EXTERNAL}), as a call an
     * interceptor deferred does, and the run ends {@code interrupted} once the calls before it
     * are done; {@link #resume(Session, List, List)} carries it on with the call's result
     * ({@link Decision#respond}). The external tools are local tools of the run's own view of
     * the agent's tools (built once for the run; the agent's registry is not changed), their
     * arguments checked against their schemas like any tool's, and no interceptor of the
     * agent's sees their calls.
     *
     * @throws IllegalArgumentException when an external tool has the name of one of the agent's
     *                                  local tools (its built-ins included), or two share a name,
     *                                  or the agent is a plain chat (it offers no tools)
     * @throws IllegalStateException    when a run of that session is still going on
     */
    public AgentRun run(String task, Session session, List<? extends Tool> external) {
        return start(task, session, completion(), null, Map.of(), external(external));
    }

    /** The external tools checked: no two of a name, and an agent that offers tools at all. */
    private List<Tool> external(List<? extends Tool> external) {
        Objects.requireNonNull(external, "external");
        if (external.isEmpty()) {
            return List.of();
        }
        if (options.plainChat()) {
            throw new IllegalArgumentException("this agent is a plain chat (no tool registry): it offers the model no"
                    + " tools, external ones included");
        }
        ToolRegistry own = options.tools.current(completion());     // the shared view, cached: nothing is built
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Tool tool : external) {
            Objects.requireNonNull(tool, "an external tool is null");
            if (!names.add(tool.name())) {
                throw new IllegalArgumentException("two external tools are named \"" + tool.name() + "\"");
            }
            if (own.find(dev.bellows.tool.ToolCall.LOCAL_SERVER, tool.name()).isPresent()) {
                throw new IllegalArgumentException("the external tool \"" + tool.name() + "\" has the name of one of"
                        + " the agent's own tools: give it another name");
            }
        }
        return List.copyOf(external);
    }

    /**
     * Runs {@code task} on the calling thread and returns how it ended, in a session as
     * {@link #run(String)} picks it. The same loop as {@code run(task).await()}: every event
     * goes to the listeners, in the same order, on this thread; no other thread is started for
     * the run, and no thread hand-off is made at each streamed piece, whatever the
     * {@link AgentBuilder#executor executor}. There is no handle: the events are heard through
     * the listeners only (none is kept for readers), and interrupting this thread reaches the
     * run as it reaches a tool or the model call, as when a caller of {@link AgentRun#await()}
     * runs the loop (see "Threads" above).
     *
     * @throws IllegalStateException when the builder's memory is given and a run of it is still going on
     * @throws VirtualMachineError   when the run met one, as {@link AgentRun#await()} rethrows it
     */
    public AgentResult runBlocking(String task) {
        return runBlocking(task, runSession());
    }

    /**
     * As {@link #runBlocking(String)}, in {@code session} (its memory and plan).
     *
     * @throws IllegalStateException when a run of that session is still going on
     */
    public AgentResult runBlocking(String task, Session session) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(session, "session");
        RunHandle run = new RunHandle(options.listeners);
        run.keepNoEvents();
        session.begin(run, false);
        DefaultAgent at = inControl(session);
        new Loop(at.options, at.protocol, session, run, task,
                options.answerSchema == null ? null : new TypedCompletion(options.answerSchema, null)).run();
        return run.await();             // loop_end has been emitted: returns at once
    }

    /**
     * Carries on the run of {@code session} that stopped at calls that wait
     * ({@code interrupted}; {@link Session#waiting()} lists them), with one decision for each
     * waiting call, and returns its handle at once. The run reports each decision on a call
     * that waited for approval ({@code approval}), keeps the decisions (a stored session
     * stores them before anything runs), runs the approved calls and those held behind them,
     * each once, turns each denial into an observation saying that the user denied the call
     * (with the reason), and goes on with the loop from there, without asking the model for
     * that answer again. Its events begin with {@code loop_start} (the original task) and end
     * with {@code loop_end}, as any run's; it counts its iterations on from the stopped run's.
     *
     * <p>Nothing is changed when the decisions do not fit: each must name a waiting call, no
     * call may be named twice, and every waiting call needs one; edited arguments must match the
     * tool's schema; an approved call's tool must be one this agent has ({@link MissingToolException}:
     * a denial needs no tool); a call carried out outside the run ({@link WaitingCall.Kind#EXTERNAL}) takes
     * a result or a denial, one waiting for approval an approval or a denial. A decision a
     * resume made before (which a stored session keeps, should that resume have been cut short)
     * may be given again, the same, or left out.
     *
     * @throws IllegalStateException    when no run of the session waits, a run of it is going
     *                                  on, or the stored waiting run cannot be read (a damaged
     *                                  database: the message says what is wrong)
     * @throws IllegalArgumentException when the decisions do not fit, naming the calls concerned
     */
    public AgentRun resume(Session session, List<? extends Decision> decisions) {
        return resume(session, decisions, List.of());
    }

    /**
     * As {@link #resume(Session, List)}, for a run started with external tools
     * ({@link #run(String, Session, List)}): give them again, since a call held behind the one
     * that waited, or one of a later answer, may be a call of one of them, which waits in its turn.
     *
     * @throws IllegalArgumentException as {@link #resume(Session, List)} and {@link #run(String, Session, List)} say
     */
    public AgentRun resume(Session session, List<? extends Decision> decisions, List<? extends Tool> external) {
        Objects.requireNonNull(session, "session");
        List<Tool> tools = external(external);
        Map<String, Decision> checked = checkedDecisions(session, decisions);
        Suspension waiting = session.suspension();
        return start(waiting.task(), session, completion(), waiting, checked, tools);
    }

    /** As {@link #resume(Session, List)}, on the calling thread, as {@link #runBlocking(String)} runs a task. */
    public AgentResult resumeBlocking(Session session, List<? extends Decision> decisions) {
        Objects.requireNonNull(session, "session");
        Map<String, Decision> checked = checkedDecisions(session, decisions);
        Suspension waiting = session.suspension();
        RunHandle run = new RunHandle(options.listeners);
        run.keepNoEvents();
        session.begin(run, true);
        DefaultAgent at = inControl(session);
        new Loop(at.options, at.protocol, session, run, waiting.task(), completion(), waiting, checked, false).run();
        return run.await();
    }

    /**
     * Gives up the run of {@code session} that waits (a person pressed Ctrl-C instead of
     * deciding), on the calling thread: every waiting call is denied with {@code reason}, the
     * calls held behind them do not run, the answer's turn is kept in the conversation with its
     * observation (and a line saying the user stopped there), nothing is sent to the model, and
     * the run ends {@code cancelled}. The listeners hear it as a run: {@code loop_start}, the
     * {@code approval} denials, the calls' errors, {@code loop_end}. The session takes new tasks
     * again.
     *
     * @throws IllegalStateException when no run of the session waits, or a run of it is going on
     */
    public AgentResult cancelWaiting(Session session, String reason) {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(reason, "reason");
        Suspension waiting = session.suspension();
        if (waiting == null) {
            throw new IllegalStateException("no run of this session waits for decisions: there is nothing to cancel");
        }
        ResumeLog log = session.resumeLog();
        List<Decision> denials = new java.util.ArrayList<>();
        for (WaitingCall call : waiting.waiting()) {
            if (log.decision(call.id()) == null) {
                denials.add(Decision.deny(call.id(), reason));
            }
        }
        Map<String, Decision> checked = checkedDecisions(session, denials);
        RunHandle run = new RunHandle(options.listeners);
        run.keepNoEvents();
        session.begin(run, true);
        DefaultAgent at = inControl(session);
        new Loop(at.options, at.protocol, session, run, waiting.task(), completion(), waiting, checked, true).run();
        return run.await();
    }

    private Tool completion() {
        return options.answerSchema == null ? null : new TypedCompletion(options.answerSchema, null);
    }

    /** The decisions by call id, checked against the session's waiting run; see {@link #resume}. */
    private Map<String, Decision> checkedDecisions(Session session, List<? extends Decision> decisions) {
        return inControl(session).machine(session).checked(decisions);
    }

    /**
     * The agent that has the session's conversation ({@link Session#control()}): this one, or
     * one it hands over to, directly or through the agents it hands to. A session whose agent in
     * control this one cannot reach goes back to this one, whole (after {@code begin}, the run's
     * own). Costs nothing for an agent without handoffs on a session never handed over.
     */
    private DefaultAgent inControl(Session session) {
        Optional<Session.Control> control = session.control();
        if (control.isEmpty()) {
            return this;
        }
        DefaultAgent found = find(control.get().agent(), new java.util.HashSet<>());
        if (found != null) {
            return found;
        }
        if (HandedRun.waiting(options, session) != null) {
            return this;        // an agent of another kind waits for an answer: this one's run passes it on
        }
        if (!options.handoffs.isEmpty() || !control.get().agent().equals(options.name)) {
            session.control(null);
        }
        return this;
    }

    /** The agent a handoff named {@code name} reaches, searching this one's handoffs and theirs; null if none. */
    private DefaultAgent find(String name, java.util.Set<DefaultAgent> seen) {
        if (!seen.add(this)) {
            return null;
        }
        Handoff direct = options.handoffs.get(name);
        if (direct != null) {
            return direct.agent() instanceof DefaultAgent agent ? agent : null;
        }
        for (Handoff handoff : options.handoffs.values()) {
            if (handoff.agent() instanceof DefaultAgent next) {
                DefaultAgent found = next.find(name, seen);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /**
     * The machine of this agent's loop for runs in {@code session}: for a driver of its own (a
     * durable run, a task of a remote protocol, an evaluation) that does the steps itself. The
     * agent's {@code run}, {@code runBlocking} and {@code resume} drive the same machine.
     */
    public AgentMachine machine(Session session) {
        return new AgentMachine(options, protocol, Objects.requireNonNull(session, "session"), completion(), List.of());
    }

    /**
     * Starts a run (in a session as {@link #run(String)} picks it) whose final answer is a value of {@code answerType}:
     * its schema is sent with {@code task_completion}, the model's result is checked and coerced
     * as tool arguments are, and a mismatch goes back to the model as an error to correct.
     *
     * @throws IllegalArgumentException when the record has a component without a JSON Schema
     *                                  mapping, or the agent is a ReAct agent
     * @throws IllegalStateException    when a run of that session is still going on
     */
    public <R extends Record> TypedRun<R> run(String task, Class<R> answerType) {
        return run(task, runSession(), answerType);
    }

    /** As {@link #run(String, Class)}, in {@code session}. */
    public <R extends Record> TypedRun<R> run(String task, Session session, Class<R> answerType) {
        Objects.requireNonNull(answerType, "answerType");
        if (options.toolMode == ToolMode.REACT || options.plainChat()) {
            throw new IllegalArgumentException("a structured answer needs the loop in the tags or native tool mode"
                    + " (a ReAct agent answers in its answer section; a plain chat has no task_completion)");
        }
        TypedCompletion completion = new TypedCompletion(JsonSchemas.forRecord(answerType), answerType);
        return new TypedRun<>(start(task, session, completion), answerType);
    }

    private AgentRun start(String task, Session session, Tool completion) {
        return start(task, session, completion, null, Map.of());
    }

    private AgentRun start(String task, Session session, Tool completion, Suspension resumeFrom,
                           Map<String, Decision> decisions) {
        return start(task, session, completion, resumeFrom, decisions, List.of());
    }

    private AgentRun start(String task, Session session, Tool completion, Suspension resumeFrom,
                           Map<String, Decision> decisions, List<Tool> external) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(session, "session");
        RunHandle run = new RunHandle(options.listeners);
        session.begin(run, resumeFrom != null);
        try {
            DefaultAgent at = inControl(session);
            Runnable loop = new Loop(at.options, at.protocol, session, run, task, completion, resumeFrom, decisions,
                    false, external);
            if (options.ownExecutor) {
                RunStart start = new RunStart(loop);
                run.offer(start);
                loop = start;
            }
            options.executor.execute(loop);
        } catch (RejectedExecutionException e) {
            run.offer(null);
            LoopEnds.rejected(run, task, e);
            session.end(run);
        }
        return run.view();
    }

    /**
     * The agent's own session: the one of the builder's {@link AgentBuilder#memory memory},
     * which {@link #run(String)} continues. Without a builder memory, runs get fresh sessions
     * and this one stays empty.
     */
    public Session session() {
        return own;
    }

    /** The conversation of the agent's own session; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return own.memory();
    }

    /** The plan of the agent's own session: empty until the model writes one with {@code update_plan}. */
    public Plan plan() {
        return own.plan();
    }

    /** Replaces the plan of the agent's own session, e.g. with {@link Plan#empty()} for a new, unrelated task. */
    public void plan(Plan plan) {
        own.plan(plan);
    }

    /**
     * The system message of this agent's requests as the model receives it on a first call
     * (no plan yet): instructions, rules and, in tag and ReAct mode, the tool catalog; for a
     * plain chat the instructions alone. Empty when there is none (a plain chat without
     * instructions). E.g. to check that a token budget can hold it: it is never left out.
     */
    public Optional<Message> systemMessage() {
        if (options.plainChat()) {
            return options.instructions.isBlank() ? Optional.empty() : Optional.of(Message.system(options.instructions));
        }
        // The system message does not depend on the turn; a frame needs one, so an empty task stands in.
        return Optional.ofNullable(protocol.frame(options.tools.snapshot(), List.of(Message.user("")), Plan.empty()).system());
    }

    /**
     * The tools as the model sees them now (the registry's and the built-ins, in a registry of
     * their own), or empty for a plain chat.
     */
    public Optional<ToolRegistry> toolRegistry() {
        return options.plainChat() ? Optional.empty() : Optional.of(options.tools.snapshot());
    }

    public ToolMode toolMode() {
        return options.toolMode;
    }

    public String model() {
        return options.model;
    }

    @Override
    public String toString() {
        return "DefaultAgent[" + options.provider.name() + ", model=" + options.model + ", " + options.toolMode
                + (options.plainChat() ? ", plain chat" : ", " + options.tools) + "]";
    }

    /** Builds a {@link DefaultAgent}: see {@link AgentBuilder} for the settings. */
    public static final class Builder extends AgentBuilder<Builder, DefaultAgent> {

        private Builder() {
            super(ToolMode.TAGS);
        }

        @Override
        public DefaultAgent build() {
            return new DefaultAgent(new AgentOptions(this, "DefaultAgent"));
        }
    }
}
