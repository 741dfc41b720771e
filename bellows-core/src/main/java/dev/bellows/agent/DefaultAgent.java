package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import dev.bellows.tool.JsonSchemas;
import dev.bellows.provider.Message;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
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
 *   <li>tool calls run in order through a {@link dev.bellows.format.ToolChain}; each gives a
 *       {@code tool_result} or a {@code tool_result_error} event, and the observation (the
 *       chain's text) is the next user message. A successful tool whose output is a
 *       {@link Plan} ({@code update_plan}) replaces the plan and emits {@code plan_update};
 *       the plan goes into every later prompt. A successful loop-breaking tool
 *       ({@code task_completion}, {@code ask_question}, {@code converse}, or your own) ends the
 *       loop with its text as the result;</li>
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
 * How the model calls tools is the {@link ToolMode}: tags (the default, described here) or
 * ReAct sections ({@link ReActAgent} is that preset). The loop above is the same for both;
 * only the prompts and the reading of each answer differ, and each answer is read while it
 * streams.
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
        session.begin(run);
        new Loop(options, protocol, session, run, task,
                options.answerSchema == null ? null : new TypedCompletion(options.answerSchema, null)).run();
        return run.await();             // loop_end has been emitted: returns at once
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
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(session, "session");
        RunHandle run = new RunHandle(options.listeners);
        session.begin(run);
        try {
            Runnable loop = new Loop(options, protocol, session, run, task, completion);
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
     * A reader of one answer of this agent's model as its loop reads it: the chunks given to it
     * emit, to {@code emit}, the stream events the loop would (all but {@code complete}), with the
     * tools as they are now. For a process that streams a model call on behalf of this agent's
     * loop running elsewhere and shows the answer while it streams (the worker of a durable run);
     * the events the loop emits when it reads the same chunks are the same.
     */
    public AnswerEvents answerEvents(java.util.function.Consumer<dev.bellows.event.AgentEvent> emit) {
        Objects.requireNonNull(emit, "emit");
        AnswerReader reader = protocol.reader(options.plainChat() ? null : options.tools.current(null), emit);
        return new AnswerEvents() {
            @Override
            public void accept(dev.bellows.stream.StreamChunk chunk) {
                reader.accept(chunk);
            }

            @Override
            public void finish() {
                reader.finish();
            }
        };
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
