package dev.bellows.agent;

import dev.bellows.agent.internal.ToolPattern;
import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.OutputFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.format.XmlFormat;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.prompt.ToolCatalogStyle;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

/**
 * The one builder of every agent ({@link DefaultAgent#builder()}, {@link ReActAgent#builder()}).
 * Only {@link #provider} and {@link #model} are required; every setter replaces what was set
 * before, except {@link #listener}, which adds. Building never changes what was passed in:
 * the registry, the formats and the memory are used, not modified.
 *
 * @param <B> the builder's own type, for chaining
 * @param <A> the agent it builds
 */
public abstract sealed class AgentBuilder<B extends AgentBuilder<B, A>, A extends Agent>
        permits DefaultAgent.Builder, ReActAgent.Builder {

    /** The default iteration limit, as the CLI's {@code --max-iterations}. */
    static final int DEFAULT_MAX_ITERATIONS = 25;
    /** The default limit of consecutive errors, as the CLI's {@code --max-consecutive-errors}. */
    static final int DEFAULT_MAX_CONSECUTIVE_ERRORS = 3;

    Provider provider;
    String model;
    String instructions = "";
    ToolMode toolMode;
    ToolRegistry toolRegistry;
    boolean builtinTools = true;
    ConversationMemory memory;
    int maxIterations = DEFAULT_MAX_ITERATIONS;
    int maxConsecutiveErrors = DEFAULT_MAX_CONSECUTIVE_ERRORS;
    RetryPolicy retryPolicy = RetryPolicy.defaults();
    StreamOptions streamOptions = StreamOptions.defaults();
    ToolCallFormat toolCallFormat = ToolCallFormat.JSON;
    ToolCatalogStyle toolCatalog = ToolCatalogStyle.JSON_SCHEMA;
    TextFormat observationFormat = new XmlFormat();
    boolean chainOfThought = true;
    TextFormat textFormat;
    ActionFormat actionFormat = ActionFormat.JSON;
    OutputFormat outputFormat = OutputFormat.JSON;
    int maxToolResultTokens = dev.bellows.memory.ResultLimit.DEFAULT_MAX_TOKENS;
    final List<AgentListener> listeners = new ArrayList<>();
    String name = "bellows";
    final java.util.LinkedHashMap<String, Handoff> handoffs = new java.util.LinkedHashMap<>();
    Limits limits;
    Limits treeLimits;
    final List<RunInterceptor> runInterceptors = new ArrayList<>();
    final List<ModelInterceptor> modelInterceptors = new ArrayList<>();
    final List<ModelInterceptor> modelCallInterceptors = new ArrayList<>();
    final List<ToolInterceptor> toolInterceptors = new ArrayList<>();
    final List<ToolPattern> approvalPatterns = new ArrayList<>();
    final List<Predicate<ToolCall>> approvalPolicies = new ArrayList<>();
    ApprovalHandler approvalHandler;
    Executor executor;
    JsonNode answerSchema;

    AgentBuilder(ToolMode toolMode) {
        this.toolMode = toolMode;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The model API (required). */
    public B provider(Provider provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
        return self();
    }

    /** The model's name, as the provider knows it (required). */
    public B model(String model) {
        this.model = Objects.requireNonNull(model, "model");
        return self();
    }

    /** The user's instructions (persona, task rules), first in the system message. */
    public B instructions(String instructions) {
        this.instructions = Objects.requireNonNull(instructions, "instructions");
        return self();
    }

    /**
     * The tools. The agent sees them together with the built-in tools the registry lacks
     * (on server {@code local}, unless {@link #builtinTools(boolean)} says not to); the
     * registry itself is left as it is, so one registry may serve many agents. Without a
     * registry a {@link DefaultAgent} is a plain chat.
     */
    public B toolRegistry(ToolRegistry toolRegistry) {
        this.toolRegistry = Objects.requireNonNull(toolRegistry, "toolRegistry");
        return self();
    }

    /** Whether the agent offers the built-in tools the registry lacks (default true). */
    public B builtinTools(boolean builtinTools) {
        this.builtinTools = builtinTools;
        return self();
    }

    /**
     * How the model calls tools (default: the preset's; {@link ToolMode#TAGS} for
     * {@link DefaultAgent}, {@link ToolMode#REACT} for {@link ReActAgent}).
     */
    public B toolMode(ToolMode toolMode) {
        this.toolMode = Objects.requireNonNull(toolMode, "toolMode");
        return self();
    }

    /**
     * The conversation memory of the agent's own session, which {@code run(task)} continues
     * across runs, one run at a time. Without it (the default) each {@code run(task)} starts a
     * fresh session with a new {@code ConversationMemory} of default limits. Runs given a
     * {@link Session} use that session's memory instead.
     */
    public B memory(ConversationMemory memory) {
        this.memory = Objects.requireNonNull(memory, "memory");
        return self();
    }

    /**
     * The most one tool result may cost the model, in tokens (default
     * {@value dev.bellows.memory.ResultLimit#DEFAULT_MAX_TOKENS}, at least 1;
     * {@link Integer#MAX_VALUE} for no limit): a longer result reaches the model cut, with a note
     * saying how much was left out. Counted with the memory's token counter when a memory is set.
     */
    public B maxToolResultTokens(int maxToolResultTokens) {
        if (maxToolResultTokens < 1) {
            throw new IllegalArgumentException("maxToolResultTokens must be at least 1, got " + maxToolResultTokens);
        }
        this.maxToolResultTokens = maxToolResultTokens;
        return self();
    }

    /** Model calls per run before it ends {@code max_iterations} (default 25, at least 1). */
    public B maxIterations(int maxIterations) {
        if (maxIterations < 1) {
            throw new IllegalArgumentException("maxIterations must be at least 1, got " + maxIterations);
        }
        this.maxIterations = maxIterations;
        return self();
    }

    /** Errors in a row before the run ends {@code circuit_breaker} (default 3, at least 1). */
    public B maxConsecutiveErrors(int maxConsecutiveErrors) {
        if (maxConsecutiveErrors < 1) {
            throw new IllegalArgumentException("maxConsecutiveErrors must be at least 1, got " + maxConsecutiveErrors);
        }
        this.maxConsecutiveErrors = maxConsecutiveErrors;
        return self();
    }

    /** How failed model calls are retried (default {@link RetryPolicy#defaults()}). */
    public B retryPolicy(RetryPolicy retryPolicy) {
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        return self();
    }

    /** The tag names the answers are parsed with (thinking and tool tags), also taught by the prompt. */
    public B streamOptions(StreamOptions streamOptions) {
        this.streamOptions = Objects.requireNonNull(streamOptions, "streamOptions");
        return self();
    }

    /** Tag mode: the tool-call form the prompt teaches (default JSON in {@code <tool>}); both always parse. */
    public B toolCallFormat(ToolCallFormat toolCallFormat) {
        this.toolCallFormat = Objects.requireNonNull(toolCallFormat, "toolCallFormat");
        return self();
    }

    /**
     * Tag and ReAct modes: how the system prompt lists the tools. The default,
     * {@link ToolCatalogStyle#JSON_SCHEMA}, gives every tool's server, name, description and
     * JSON Schema as registered, as the CLI contract describes the prompt.
     * {@link ToolCatalogStyle#SIGNATURES} departs from it to save tokens: TypeScript-like
     * signatures, servers named only when some tool is not on server {@code local}. Native tool
     * mode sends the tools in the request, so this does not apply to it.
     */
    public B toolCatalog(ToolCatalogStyle toolCatalog) {
        this.toolCatalog = Objects.requireNonNull(toolCatalog, "toolCatalog");
        return self();
    }

    /** Tag mode: how observations are written for the model (default {@link XmlFormat}). */
    public B observationFormat(TextFormat observationFormat) {
        this.observationFormat = Objects.requireNonNull(observationFormat, "observationFormat");
        return self();
    }

    /** Tag mode: whether the prompt asks the model to think in thinking tags first (default true). */
    public B chainOfThought(boolean chainOfThought) {
        this.chainOfThought = chainOfThought;
        return self();
    }

    /**
     * ReAct mode: the sections' format, for the answers and the observations (default
     * {@link MarkdownFormat}). The agent reads with a copy that has {@code thought},
     * {@code action} and {@code answer} registered; the format given is not changed. A format
     * of your own (not Markdown or XML) cannot be copied and must have them registered already.
     */
    public B textFormat(TextFormat textFormat) {
        this.textFormat = Objects.requireNonNull(textFormat, "textFormat");
        return self();
    }

    /** ReAct mode: how the model writes tool calls in the action section (default JSON). */
    public B actionFormat(ActionFormat actionFormat) {
        this.actionFormat = Objects.requireNonNull(actionFormat, "actionFormat");
        return self();
    }

    /** ReAct mode: how tool outputs that are not strings are written in observations (default JSON). */
    public B outputFormat(OutputFormat outputFormat) {
        this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
        return self();
    }

    /**
     * Makes every run's final answer structured: {@code task_completion}'s {@code result} must
     * match this JSON Schema (checked and coerced as tool arguments are; a mismatch goes back to
     * the model as an error), and the run's result is the answer's JSON. For a record type per
     * run, see {@link DefaultAgent#run(String, Class)}. Tags and native tool modes only. The
     * builder keeps a frozen copy (none of a tree frozen already): changing {@code answerSchema}
     * later changes nothing.
     */
    public B answerSchema(JsonNode answerSchema) {
        this.answerSchema = FrozenJson.freeze(Objects.requireNonNull(answerSchema, "answerSchema"));
        return self();
    }

    /** Adds a listener, told every event of every run. */
    public B listener(AgentListener listener) {
        this.listeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /**
     * The agent's name, which interceptors see ({@link RunContext#agentName()}; a tracer's
     * {@code gen_ai.agent.name}); default {@code bellows}.
     */
    public B name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("an agent's name must not be blank");
        }
        this.name = name;
        return self();
    }

    /**
     * Adds an interceptor around every run (see {@link RunInterceptor}); the first added is
     * outermost. None by default: an agent without interceptors runs exactly as before.
     */
    public B runInterceptor(RunInterceptor interceptor) {
        this.runInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }

    /**
     * Adds an interceptor around every model request, each attempt of it (see
     * {@link ModelInterceptor}); the first added is outermost.
     */
    public B modelInterceptor(ModelInterceptor interceptor) {
        this.modelInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }

    /**
     * Adds an interceptor around every model call as a whole, once, outside the retries (see
     * {@link ModelInterceptor}, "Retries"), as OkHttp's application interceptors sit outside its
     * network ones: it sees the request before the first attempt and the answer's stream with a
     * {@link dev.bellows.stream.StreamChunk.Restart} frame for each retry; its
     * {@code chain.attempt()} is 0, and a {@link dev.bellows.provider.ProviderException} it
     * throws is not retried. The first added is outermost; all of them sit outside the
     * {@link #modelInterceptor per-attempt ones}.
     */
    public B modelCallInterceptor(ModelInterceptor interceptor) {
        this.modelCallInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }

    /**
     * Adds an interceptor around every tool call that runs (see {@link ToolInterceptor}); the
     * first added is outermost.
     */
    public B toolInterceptor(ToolInterceptor interceptor) {
        this.toolInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
        return self();
    }

    /**
     * Limits on each run of this agent ({@link Limits}): its model calls (the same as
     * {@link #maxIterations}, when given), its tokens, its time. A run of it as another agent's
     * tool is a run of its own.
     */
    public B limits(Limits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        if (limits.maxIterations() != Integer.MAX_VALUE) {
            maxIterations(limits.maxIterations());
        }
        return self();
    }

    /**
     * Limits on a run of this agent together with every agent it runs, as tools or by handoffs,
     * to any depth ({@link Limits}): their model calls, tokens and time counted together. An
     * agent it runs that has tree limits of its own is bound by both.
     */
    public B treeLimits(Limits limits) {
        this.treeLimits = Objects.requireNonNull(limits, "limits");
        return self();
    }

    /**
     * Another agent this one may hand the conversation to ({@link Handoff}): its model is offered
     * {@code transfer_to_NAME}. Repeatable; without any, nothing of handoffs is made.
     *
     * @throws IllegalArgumentException when a handoff of that name was given already
     */
    public B handoff(Handoff handoff) {
        Objects.requireNonNull(handoff, "handoff");
        if (handoffs.putIfAbsent(handoff.name(), handoff) != null) {
            throw new IllegalArgumentException("two handoffs named " + handoff.name() + ": give each its own name");
        }
        return self();
    }

    /**
     * Every call of the tools {@code pattern} names needs a person's approval before it runs:
     * {@code SERVER/TOOL}, where {@code *} matches any run of characters (<code>files/&#42;</code>,
     * <code>&#42;/write_file</code>, {@code *}). Repeatable; the built-in loop tools
     * ({@code task_completion}, {@code ask_question}, {@code converse}, {@code update_plan})
     * never need it. The calls of one answer run in order; from the first call that needs
     * approval on, every call of that answer waits until each call that needs it is decided:
     * by the {@link #approvalHandler handler}, or, without one, by a resume after the run
     * stopped {@code interrupted} (see docs/interceptors.md).
     *
     * @throws IllegalArgumentException for a pattern that is not {@code SERVER/TOOL} or {@code *}
     */
    public B requireApproval(String pattern) {
        this.approvalPatterns.add(ToolPattern.of(pattern));
        return self();
    }

    /**
     * Every call {@code policy} says yes to needs a person's approval (beside the patterns): a
     * function of the call (server, tool, arguments checked against the schema), asked on the
     * run's thread. The built-in loop tools never need approval.
     */
    public B requireApproval(Predicate<ToolCall> policy) {
        this.approvalPolicies.add(Objects.requireNonNull(policy, "policy"));
        return self();
    }

    /**
     * Who decides on calls that need approval while the run waits (see {@link ApprovalHandler});
     * without one (the default) the run stops {@code interrupted} at them.
     */
    public B approvalHandler(ApprovalHandler handler) {
        this.approvalHandler = Objects.requireNonNull(handler, "handler");
        return self();
    }

    /**
     * Where runs go on (default: a new virtual thread each). A run whose executor rejects it
     * ends at once with {@code error}. A run given one also tells its sub-agents' events
     * ({@link AgentTool}) there, and runs a parallel workflow's branches there: an executor
     * that runs each task on the calling thread ({@code Runnable::run}) keeps a run and the
     * agents it calls on one thread, one step after another (a driver that allows no other
     * thread, a Temporal workflow, needs that; turn parallel tool calls off there too:
     * {@link ToolInterceptor#allowsParallelCalls()}). Such a run's {@code run} returns once it
     * has ended.
     */
    public B executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return self();
    }

    /**
     * @throws IllegalStateException    when the provider or the model is missing
     * @throws IllegalArgumentException when a setting cannot be used (a text format of your
     *                                  own without the ReAct sections)
     */
    public abstract A build();
}
