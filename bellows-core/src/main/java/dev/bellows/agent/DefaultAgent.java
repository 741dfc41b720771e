package dev.bellows.agent;

import dev.bellows.format.TextFormat;
import dev.bellows.format.XmlFormat;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.PromptBuilder;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryListener;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

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
 * Each iteration (at most {@link Builder#maxIterations}) emits {@code iteration_start}, sends
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
 * after each iteration a count of {@link Builder#maxConsecutiveErrors} ends the loop
 * ({@code circuit_breaker}); else reaching {@link Builder#maxIterations} does
 * ({@code max_iterations}). A loop-breaking call wins over both.
 *
 * <h2>Memory</h2>
 * The conversation lives in the agent's {@link ConversationMemory}, across runs, so that
 * {@link #run} is also the next message of a chat. Each answer goes in verbatim (tags
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
 * The provider is wrapped in a {@link RetryingProvider} with the {@link Builder#retryPolicy}
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
 * A run goes on on its own thread (a new virtual thread unless an {@link Builder#executor} is
 * given); listeners are called on it. One run at a time: the runs share the memory and plan.
 */
public final class DefaultAgent implements Agent {

    /** The default iteration limit, as the CLI's {@code --max-iterations}. */
    public static final int DEFAULT_MAX_ITERATIONS = 25;
    /** The default limit of consecutive errors, as the CLI's {@code --max-consecutive-errors}. */
    public static final int DEFAULT_MAX_CONSECUTIVE_ERRORS = 3;

    final RetryingProvider provider;
    final String model;
    final String instructions;
    final ToolRegistry toolRegistry;
    final ConversationMemory memory;
    final int maxIterations;
    final int maxConsecutiveErrors;
    final StreamOptions streamOptions;
    final ToolCallFormat toolCallFormat;
    final TextFormat observationFormat;
    final boolean chainOfThought;
    final List<AgentListener> listeners;
    private final Executor executor;

    private final Object runLock = new Object();
    private RunHandle current;                  // guarded by runLock
    private volatile Plan plan = Plan.empty();

    private DefaultAgent(Builder builder) {
        if (builder.provider == null) {
            throw new IllegalStateException("a provider is needed: DefaultAgent.builder().provider(...)");
        }
        if (builder.model == null || builder.model.isBlank()) {
            throw new IllegalStateException("a model name is needed: DefaultAgent.builder().model(\"gpt-4o-mini\")");
        }
        this.provider = builder.provider instanceof RetryingProvider retrying
                ? retrying
                : new RetryingProvider(builder.provider, builder.retryPolicy, RetryListener.NONE);
        this.model = builder.model;
        this.instructions = builder.instructions;
        this.toolRegistry = builder.toolRegistry;
        this.memory = builder.memory != null ? builder.memory : ConversationMemory.builder().build();
        this.maxIterations = builder.maxIterations;
        this.maxConsecutiveErrors = builder.maxConsecutiveErrors;
        this.streamOptions = builder.streamOptions;
        this.toolCallFormat = builder.toolCallFormat;
        this.observationFormat = builder.observationFormat;
        this.chainOfThought = builder.chainOfThought;
        this.listeners = List.copyOf(builder.listeners);
        this.executor = builder.executor != null ? builder.executor : virtualThreads();
        if (toolRegistry != null && builder.builtinTools) {
            addMissingBuiltins(toolRegistry);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a run on its own thread and returns its handle at once.
     *
     * @throws IllegalStateException when a run of this agent is still going on: await or
     *                               cancel it first (runs share the memory and the plan)
     */
    @Override
    public AgentRun run(String task) {
        Objects.requireNonNull(task, "task");
        RunHandle run = new RunHandle(listeners);
        synchronized (runLock) {
            if (current != null && !current.isDone()) {
                throw new IllegalStateException("this agent is still running a task; await() or cancel() that run first");
            }
            current = run;
        }
        AgentLoop loop = new AgentLoop(this, run, task);
        try {
            executor.execute(loop);
        } catch (RejectedExecutionException e) {
            loop.rejected(e);
        }
        return run;
    }

    /** The conversation so far; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return memory;
    }

    /** The current plan: empty until the model writes one with {@code update_plan}. */
    public Plan plan() {
        return plan;
    }

    /** Replaces the plan, e.g. with {@link Plan#empty()} for a new, unrelated task. */
    public void plan(Plan plan) {
        this.plan = Objects.requireNonNull(plan, "plan");
    }

    /**
     * The prompts of this agent's loop: its system message (instructions, rules, tool catalog)
     * as the model receives it, e.g. to check that a token budget can hold it.
     */
    public PromptBuilder prompts() {
        return PromptBuilder.builder()
                .instructions(instructions)
                .toolRegistry(toolRegistry)
                .toolCallFormat(toolCallFormat)
                .streamOptions(streamOptions)
                .chainOfThought(chainOfThought)
                .build();
    }

    /** The tools, or empty for a plain chat. */
    public Optional<ToolRegistry> toolRegistry() {
        return Optional.ofNullable(toolRegistry);
    }

    public String model() {
        return model;
    }

    @Override
    public String toString() {
        return "DefaultAgent[" + provider.name() + ", model=" + model
                + (toolRegistry == null ? ", plain chat" : ", " + toolRegistry) + "]";
    }

    private static Executor virtualThreads() {
        ThreadFactory threads = Thread.ofVirtual().name("bellows-agent-", 0).factory();
        return task -> threads.newThread(task).start();
    }

    /** The built-ins the registry lacks, on server {@code local}: the loop cannot end without them. */
    private static void addMissingBuiltins(ToolRegistry registry) {
        for (Tool tool : BuiltinTools.all()) {
            if (registry.find(ToolCall.LOCAL_SERVER, tool.name()).isEmpty()) {
                registry.register(tool);
            }
        }
    }

    /** The current plan, as the loop replaces it. */
    void replacePlan(Plan plan) {
        this.plan = plan;
    }

    /**
     * Builds a {@link DefaultAgent}. Only {@link #provider} and {@link #model} are required;
     * every setter replaces what was set before, except {@link #listener}, which adds.
     */
    public static final class Builder {
        private Provider provider;
        private String model;
        private String instructions = "";
        private ToolRegistry toolRegistry;
        private boolean builtinTools = true;
        private ConversationMemory memory;
        private int maxIterations = DEFAULT_MAX_ITERATIONS;
        private int maxConsecutiveErrors = DEFAULT_MAX_CONSECUTIVE_ERRORS;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private StreamOptions streamOptions = StreamOptions.defaults();
        private ToolCallFormat toolCallFormat = ToolCallFormat.JSON;
        private TextFormat observationFormat = new XmlFormat();
        private boolean chainOfThought = true;
        private final List<AgentListener> listeners = new ArrayList<>();
        private Executor executor;

        private Builder() {
        }

        /** The model API (required). */
        public Builder provider(Provider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** The model's name, as the provider knows it (required). */
        public Builder model(String model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /** The user's instructions (persona, task rules), first in the system message. */
        public Builder instructions(String instructions) {
            this.instructions = Objects.requireNonNull(instructions, "instructions");
            return this;
        }

        /**
         * The tools: with them the agent runs the loop, without them it is a plain chat. The
         * built-in tools the registry lacks ({@code task_completion}, {@code ask_question},
         * {@code converse}, {@code update_plan}) are registered into it on server
         * {@code local} when the agent is built, unless {@link #builtinTools(boolean)} says not to.
         */
        public Builder toolRegistry(ToolRegistry toolRegistry) {
            this.toolRegistry = Objects.requireNonNull(toolRegistry, "toolRegistry");
            return this;
        }

        /** Whether to add the missing built-in tools to the registry (default true). */
        public Builder builtinTools(boolean builtinTools) {
            this.builtinTools = builtinTools;
            return this;
        }

        /** The conversation memory (default: a new {@code ConversationMemory} with its default limits). */
        public Builder memory(ConversationMemory memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /** Model calls per run before it ends {@code max_iterations} (default 25, at least 1). */
        public Builder maxIterations(int maxIterations) {
            if (maxIterations < 1) {
                throw new IllegalArgumentException("maxIterations must be at least 1, got " + maxIterations);
            }
            this.maxIterations = maxIterations;
            return this;
        }

        /** Errors in a row before the run ends {@code circuit_breaker} (default 3, at least 1). */
        public Builder maxConsecutiveErrors(int maxConsecutiveErrors) {
            if (maxConsecutiveErrors < 1) {
                throw new IllegalArgumentException("maxConsecutiveErrors must be at least 1, got " + maxConsecutiveErrors);
            }
            this.maxConsecutiveErrors = maxConsecutiveErrors;
            return this;
        }

        /** How failed model calls are retried (default {@link RetryPolicy#defaults()}). */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /** The tag names the answers are parsed with, also taught by the prompt. */
        public Builder streamOptions(StreamOptions streamOptions) {
            this.streamOptions = Objects.requireNonNull(streamOptions, "streamOptions");
            return this;
        }

        /** The tool-call form the prompt teaches (default JSON in {@code <tool>}); both always parse. */
        public Builder toolCallFormat(ToolCallFormat toolCallFormat) {
            this.toolCallFormat = Objects.requireNonNull(toolCallFormat, "toolCallFormat");
            return this;
        }

        /** How observations are written for the model (default {@link XmlFormat}). */
        public Builder observationFormat(TextFormat observationFormat) {
            this.observationFormat = Objects.requireNonNull(observationFormat, "observationFormat");
            return this;
        }

        /** Whether the prompt asks the model to think in thinking tags first (default true). */
        public Builder chainOfThought(boolean chainOfThought) {
            this.chainOfThought = chainOfThought;
            return this;
        }

        /** Adds a listener, told every event of every run. */
        public Builder listener(AgentListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Where runs go on (default: a new virtual thread each). A run whose executor rejects
         * it ends at once with {@code error}.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * @throws IllegalStateException when the provider or the model is missing
         * @throws IllegalArgumentException when a built-in tool cannot be registered
         */
        public DefaultAgent build() {
            return new DefaultAgent(this);
        }
    }
}
