package dev.bellows.agent;

import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.OutputFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.format.TextSection;
import dev.bellows.format.XmlFormat;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.prompt.ReActPrompts;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.prompt.ToolCatalogStyle;
import dev.bellows.provider.RetryListener;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.Tool;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * Everything an agent was built with, checked and frozen: the one options object behind every
 * agent. Nothing the caller passed in is changed: the tools are seen through an
 * {@link AgentTools} view, and a ReAct text format gets its sections in a copy.
 */
final class AgentOptions {

    final RetryingProvider provider;
    final String model;
    final String instructions;
    final ToolMode toolMode;
    /** The tools with the built-ins, or null for a plain chat. */
    final AgentTools tools;
    /** The memory given to the builder, or null. */
    final ConversationMemory memory;
    final int maxIterations;
    final int maxConsecutiveErrors;
    final StreamOptions streamOptions;
    final ToolCallFormat toolCallFormat;
    final ToolCatalogStyle toolCatalog;
    final TextFormat observationFormat;
    final boolean chainOfThought;
    final TextFormat textFormat;
    final ActionFormat actionFormat;
    final OutputFormat outputFormat;
    /** The most one tool result may cost the model. */
    final dev.bellows.memory.ResultLimit resultLimit;
    final List<AgentListener> listeners;
    final Executor executor;
    /** No executor was given: runs go on new virtual threads, and an awaiting caller may run one itself. */
    final boolean ownExecutor;
    /** The schema every run's answer must match, or null for a text answer. */
    final tools.jackson.databind.JsonNode answerSchema;      // frozen
    /** The agent's name, for interceptors ({@link RunContext#agentName()}). */
    final String name;
    /** The limits of each of its runs, and of its runs' trees; null for none. */
    final Limits limits;
    final Limits treeLimits;
    /** The agents it may hand the conversation to, by name; empty for most agents. */
    final java.util.Map<String, Handoff> handoffs;
    final List<RunInterceptor> runInterceptors;
    final List<ModelInterceptor> modelInterceptors;
    /** Around each model call as a whole, outside the retries. */
    final List<ModelInterceptor> modelCallInterceptors;
    final List<ToolInterceptor> toolInterceptors;
    /** Whether the tool interceptors let the calls of an answer run at the same time. */
    final boolean parallelToolCalls;
    /** Which calls need approval, or null when none does. */
    final Approvals approvals;
    /** Who decides on them while the run waits, or null: the run stops. */
    final ApprovalHandler approvalHandler;

    AgentOptions(AgentBuilder<?, ?> b, String agentName) {
        if (b.provider == null) {
            throw new IllegalStateException("a provider is needed: " + agentName + ".builder().provider(...)");
        }
        if (b.model == null || b.model.isBlank()) {
            throw new IllegalStateException("a model name is needed: " + agentName + ".builder().model(\"gpt-4o-mini\")");
        }
        this.provider = b.provider instanceof RetryingProvider retrying
                ? retrying
                : new RetryingProvider(b.provider, b.retryPolicy, RetryListener.NONE);
        this.model = b.model;
        this.instructions = b.instructions;
        this.toolMode = b.toolMode;
        this.memory = b.memory;
        this.maxIterations = b.maxIterations;
        this.maxConsecutiveErrors = b.maxConsecutiveErrors;
        // The loop reports each tool argument as soon as it is complete (a write's path, a search's query).
        this.streamOptions = b.streamOptions.withArgumentEvents(true);
        this.toolCallFormat = b.toolCallFormat;
        this.toolCatalog = b.toolCatalog;
        this.observationFormat = b.observationFormat;
        this.chainOfThought = b.chainOfThought;
        this.actionFormat = b.actionFormat;
        this.outputFormat = b.outputFormat;
        this.resultLimit = new dev.bellows.memory.ResultLimit(b.maxToolResultTokens, b.memory != null
                ? b.memory.tokenCounter() : new dev.bellows.memory.EstimatingTokenCounter());
        this.listeners = List.copyOf(b.listeners);
        this.name = b.name;
        this.limits = b.limits == null || b.limits.isNone() ? null : b.limits;
        this.treeLimits = b.treeLimits == null || b.treeLimits.isNone() ? null : b.treeLimits;
        this.handoffs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(b.handoffs));
        this.runInterceptors = List.copyOf(b.runInterceptors);
        this.modelInterceptors = List.copyOf(b.modelInterceptors);
        this.modelCallInterceptors = List.copyOf(b.modelCallInterceptors);
        this.toolInterceptors = List.copyOf(b.toolInterceptors);
        this.parallelToolCalls = toolInterceptors.stream().allMatch(ToolInterceptor::allowsParallelCalls);
        Approvals approvals = new Approvals(b.approvalPatterns, b.approvalPolicies);
        this.approvals = approvals.isEmpty() ? null : approvals;
        this.approvalHandler = b.approvalHandler;
        this.answerSchema = b.answerSchema;
        if (answerSchema != null && toolMode == ToolMode.REACT) {
            throw new IllegalArgumentException("a structured answer is for the tags and native tool modes: a ReAct"
                    + " agent answers in its answer section");
        }
        this.executor = b.executor != null ? b.executor : virtualThreads();
        this.ownExecutor = b.executor == null;
        List<Tool> builtins = !b.builtinTools ? List.of()
                : toolMode == ToolMode.REACT
                        // the answer section replaces task_completion; this loop shows no plan
                        ? List.of(BuiltinTools.askQuestion(), BuiltinTools.converse())
                        : BuiltinTools.all();
        if (!handoffs.isEmpty()) {
            List<Tool> withTransfers = new java.util.ArrayList<>(builtins);
            handoffs.values().forEach(handoff -> withTransfers.add(handoff.tool()));
            builtins = withTransfers;
        }
        if (b.toolRegistry != null) {
            this.tools = new AgentTools(b.toolRegistry, builtins);
        } else if (toolMode == ToolMode.REACT) {
            this.tools = new AgentTools(new dev.bellows.tool.ToolRegistry(), builtins);
        } else {
            this.tools = null;
        }
        this.textFormat = toolMode == ToolMode.REACT ? withReActSections(b.textFormat, actionFormat) : b.textFormat;
    }

    boolean plainChat() {
        return tools == null;
    }

    /**
     * Whether tool calls go the long way: one at a time through the tool interceptors (and
     * approvals), each with its id. Without any, a batch runs as a {@code ToolChain} runs it,
     * with nothing added.
     */
    boolean interceptsTools() {
        return !toolInterceptors.isEmpty() || approvals != null;
    }

    /**
     * The caller's format with the ReAct sections, in a new instance: the caller's own stays as
     * it was, so one format may be shared by many agents and threads.
     */
    private static TextFormat withReActSections(TextFormat given, ActionFormat actionFormat) {
        List<TextSection> ours = List.of(
                new TextSection(ReActPrompts.THOUGHT, "your reasoning about the latest message and what to do next"),
                new TextSection(ReActPrompts.ACTION,
                        "the tool calls to make, in " + actionFormat.name() + ", when you need a tool"),
                new TextSection(ReActPrompts.ANSWER, "the complete answer for the user, only once the task is done"));
        TextFormat copy = switch (given) {
            case null -> new MarkdownFormat();
            case MarkdownFormat m -> new MarkdownFormat();
            case XmlFormat x -> new XmlFormat();
            default -> null;
        };
        if (copy == null) {
            // A format of the caller's own cannot be copied: it must come with the sections.
            List<String> names = given.sections().stream().map(s -> s.name().toLowerCase(java.util.Locale.ROOT)).toList();
            for (TextSection section : ours) {
                if (!names.contains(section.name())) {
                    throw new IllegalArgumentException("the text format " + given.getClass().getName()
                            + " lacks the section '" + section.name() + "': register thought, action and answer"
                            + " in it before building the agent (MarkdownFormat and XmlFormat are copied instead)");
                }
            }
            return given;
        }
        if (given != null) {
            given.sections().forEach(copy::registerSection);
        }
        ours.forEach(copy::registerSection);
        return copy;
    }

    private static Executor virtualThreads() {
        ThreadFactory threads = Thread.ofVirtual().name("bellows-agent-", 0).factory();
        return task -> threads.newThread(task).start();
    }
}
