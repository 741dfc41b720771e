package dev.bellows.agent;

import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.OutputFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.format.TextSection;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.prompt.ReActPrompts;
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
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * A ReAct agent: the model writes its answer as sections of a {@link TextFormat}
 * ({@code thought}, {@code action}, {@code answer}; Markdown headings or XML tags), its tool
 * calls as JSON or YAML inside the {@code action} section, and reads the tools' results as an
 * {@code observation} section in the same format.
 *
 * <pre>{@code
 * ReActAgent agent = ReActAgent.builder()
 *         .provider(provider)
 *         .model("gpt-4o-mini")
 *         .instructions("You help with the files in this folder.")
 *         .toolRegistry(new ToolRegistry().register(readFile))
 *         .textFormat(new XmlFormat())            // default: MarkdownFormat
 *         .actionFormat(ActionFormat.YAML)        // default: JSON
 *         .build();
 * AgentResult result = agent.run("What does notes.txt say?").await();
 * }</pre>
 *
 * <h2>The loop</h2>
 * The system message holds the instructions, the loop rules, the sections as
 * {@link TextFormat#describeStructure()} describes them, how to write an action, and the tool
 * catalog. Each iteration (at most {@link Builder#maxIterations}) emits {@code iteration_start},
 * streams the answer through a {@link dev.bellows.stream.StreamProcessor} (stream events reach
 * the listeners as in {@link DefaultAgent}; thinking tags are taken out before parsing), then
 * parses its message text with {@link TextFormat#parse}:
 * <ul>
 *   <li>an {@code answer} and no {@code action}: the loop ends {@code task_completion} with the
 *       answer's text (several {@code answer} sections are joined by a blank line);</li>
 *   <li>an {@code action}: its calls (one or a list, see {@link ActionFormat}) run in order
 *       through a {@link dev.bellows.format.ToolChain}, each giving {@code tool_result} or
 *       {@code tool_result_error}; the chain's observation is the next user message. A
 *       loop-breaking tool ({@code ask_question}, {@code converse}, {@code task_completion},
 *       or your own) ends the loop as in {@link DefaultAgent}. <b>An action and an answer in
 *       the same answer:</b> the action wins: its calls run, the answer is ignored (it was
 *       written before their results were known) and the observation is followed by a note
 *       saying so, so the model answers again with the results in hand;</li>
 *   <li>an action that cannot be read as calls at all (invalid JSON or YAML, not a call nor a
 *       list of calls): {@code tool_result_error} without server or tool name, and the decoder's
 *       message, written for the model, is the next user message. A list whose entries are
 *       partly bad runs the good ones; the bad ones are errors in the observation;</li>
 *   <li>no section at all: {@code no_tool_call}, and the {@link dev.bellows.format.TextFormatException}'s
 *       message is the next user message; sections but neither action nor answer (a thought
 *       only): {@code no_tool_call} and a reminder.</li>
 * </ul>
 * Format errors, unreadable actions, unknown tools, bad arguments and failing tools count as
 * errors; a successful call resets the count. After an iteration, a count of
 * {@link Builder#maxConsecutiveErrors} ends the loop {@code circuit_breaker}; else reaching
 * {@link Builder#maxIterations} ends it {@code max_iterations}. Provider failures, retries,
 * cancellation, memory and threads behave exactly as in {@link DefaultAgent}.
 *
 * <p>Built-in tools: {@code ask_question} and {@code converse} are added to the registry when
 * missing (the {@code answer} section replaces {@code task_completion}; {@code update_plan} is
 * not offered, this loop shows no plan), unless {@link Builder#builtinTools(boolean)} says not to.
 */
public final class ReActAgent implements Agent {

    final RetryingProvider provider;
    final String model;
    final String instructions;
    final ToolRegistry toolRegistry;
    final ConversationMemory memory;
    final TextFormat textFormat;
    final ActionFormat actionFormat;
    final OutputFormat outputFormat;
    final int maxIterations;
    final int maxConsecutiveErrors;
    final StreamOptions streamOptions;
    final List<AgentListener> listeners;
    private final Executor executor;

    private final Object runLock = new Object();
    private RunHandle current;                  // guarded by runLock

    private ReActAgent(Builder builder) {
        if (builder.provider == null) {
            throw new IllegalStateException("a provider is needed: ReActAgent.builder().provider(...)");
        }
        if (builder.model == null || builder.model.isBlank()) {
            throw new IllegalStateException("a model name is needed: ReActAgent.builder().model(\"gpt-4o-mini\")");
        }
        this.provider = builder.provider instanceof RetryingProvider retrying
                ? retrying
                : new RetryingProvider(builder.provider, builder.retryPolicy, RetryListener.NONE);
        this.model = builder.model;
        this.instructions = builder.instructions;
        this.toolRegistry = builder.toolRegistry != null ? builder.toolRegistry : new ToolRegistry();
        this.memory = builder.memory != null ? builder.memory : ConversationMemory.builder().build();
        this.textFormat = builder.textFormat != null ? builder.textFormat : new MarkdownFormat();
        this.actionFormat = builder.actionFormat;
        this.outputFormat = builder.outputFormat;
        this.maxIterations = builder.maxIterations;
        this.maxConsecutiveErrors = builder.maxConsecutiveErrors;
        this.streamOptions = builder.streamOptions;
        this.listeners = List.copyOf(builder.listeners);
        this.executor = builder.executor != null ? builder.executor : virtualThreads();
        registerSections(textFormat, actionFormat);
        if (builder.builtinTools) {
            for (Tool tool : List.of(BuiltinTools.askQuestion(), BuiltinTools.converse())) {
                if (toolRegistry.find(ToolCall.LOCAL_SERVER, tool.name()).isEmpty()) {
                    toolRegistry.register(tool);
                }
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private static void registerSections(TextFormat format, ActionFormat actionFormat) {
        format.registerSection(new TextSection(ReActPrompts.THOUGHT,
                "your reasoning about the latest message and what to do next"));
        format.registerSection(new TextSection(ReActPrompts.ACTION,
                "the tool calls to make, in " + actionFormat.name() + ", when you need a tool"));
        format.registerSection(new TextSection(ReActPrompts.ANSWER,
                "the complete answer for the user, only once the task is done"));
    }

    /**
     * Starts a run on its own thread and returns its handle at once.
     *
     * @throws IllegalStateException when a run of this agent is still going on
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
        ReActLoop loop = new ReActLoop(this, run, task);
        try {
            executor.execute(loop);
        } catch (RejectedExecutionException e) {
            LoopEnds.rejected(run, task, e);
        }
        return run;
    }

    /** The conversation so far; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return memory;
    }

    public ToolRegistry toolRegistry() {
        return toolRegistry;
    }

    public TextFormat textFormat() {
        return textFormat;
    }

    public ActionFormat actionFormat() {
        return actionFormat;
    }

    public String model() {
        return model;
    }

    /** The prompt texts this agent sends, for inspection or for comparing with what was sent. */
    public ReActPrompts prompts() {
        return new ReActPrompts(instructions, textFormat, actionFormat, toolRegistry);
    }

    @Override
    public String toString() {
        return "ReActAgent[" + provider.name() + ", model=" + model + ", " + toolRegistry + "]";
    }

    private static Executor virtualThreads() {
        ThreadFactory threads = Thread.ofVirtual().name("bellows-react-", 0).factory();
        return task -> threads.newThread(task).start();
    }

    /**
     * Builds a {@link ReActAgent}. Only {@link #provider} and {@link #model} are required;
     * every setter replaces what was set before, except {@link #listener}, which adds.
     */
    public static final class Builder {
        private Provider provider;
        private String model;
        private String instructions = "";
        private ToolRegistry toolRegistry;
        private boolean builtinTools = true;
        private ConversationMemory memory;
        private TextFormat textFormat;
        private ActionFormat actionFormat = ActionFormat.JSON;
        private OutputFormat outputFormat = OutputFormat.JSON;
        private int maxIterations = DefaultAgent.DEFAULT_MAX_ITERATIONS;
        private int maxConsecutiveErrors = DefaultAgent.DEFAULT_MAX_CONSECUTIVE_ERRORS;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private StreamOptions streamOptions = StreamOptions.defaults();
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

        /** The tools (default: an empty registry, the built-ins aside). */
        public Builder toolRegistry(ToolRegistry toolRegistry) {
            this.toolRegistry = Objects.requireNonNull(toolRegistry, "toolRegistry");
            return this;
        }

        /** Whether to add {@code ask_question} and {@code converse} when missing (default true). */
        public Builder builtinTools(boolean builtinTools) {
            this.builtinTools = builtinTools;
            return this;
        }

        /** The conversation memory (default: a new {@code ConversationMemory}). */
        public Builder memory(ConversationMemory memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /**
         * The sections' format, for the answers and the observations (default
         * {@link MarkdownFormat}). The agent registers {@code thought}, {@code action} and
         * {@code answer} in it; give each agent its own instance.
         */
        public Builder textFormat(TextFormat textFormat) {
            this.textFormat = Objects.requireNonNull(textFormat, "textFormat");
            return this;
        }

        /** How the model writes tool calls in the action section (default JSON). */
        public Builder actionFormat(ActionFormat actionFormat) {
            this.actionFormat = Objects.requireNonNull(actionFormat, "actionFormat");
            return this;
        }

        /** How tool outputs that are not strings are written in observations (default JSON). */
        public Builder outputFormat(OutputFormat outputFormat) {
            this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
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

        /** The thinking tags taken out of the answers before they are parsed. */
        public Builder streamOptions(StreamOptions streamOptions) {
            this.streamOptions = Objects.requireNonNull(streamOptions, "streamOptions");
            return this;
        }

        /** Adds a listener, told every event of every run. */
        public Builder listener(AgentListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Where runs go on (default: a new virtual thread each). */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public ReActAgent build() {
            return new ReActAgent(this);
        }
    }
}
