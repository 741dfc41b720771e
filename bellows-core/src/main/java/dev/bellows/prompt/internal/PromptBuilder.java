package dev.bellows.prompt.internal;

import dev.bellows.plan.Plan;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.prompt.ToolCatalogStyle;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * Assembles what the model is sent on each iteration of the agent loop:
 * <ol>
 *   <li>the {@linkplain #systemMessage() system message}: the user's instructions, then the
 *       loop's rules with one example call in the tool-call format (and chain-of-thought
 *       guidance, unless turned off), then the catalog of every tool: by default under a
 *       heading naming its server, {@code name: description}, then its JSON Schema as
 *       registered, minified on one line ({@link ToolCatalogStyle#JSON_SCHEMA}); or, when
 *       asked for to save tokens, as TypeScript-like signatures ({@link ToolCatalogStyle#SIGNATURES});</li>
 *   <li>the conversation history, as given (the memory's whole turns);</li>
 *   <li>the current turn (the user's task, or the observation of the last tool calls) with the
 *       current plan and any extra context appended to its text.</li>
 * </ol>
 *
 * <pre>{@code
 * PromptBuilder prompts = PromptBuilder.builder()
 *         .instructions("You are a careful release engineer.")
 *         .toolRegistry(registry)                 // holding BuiltinTools.all() and your tools
 *         .toolCallFormat(ToolCallFormat.JSON)
 *         .build();
 * List<Message> request = prompts.build(memory.messagesWithin(reserve), Message.user(task), plan, Map.of());
 * }</pre>
 *
 * <p>Without a tool registry the builder is for a plain chat: the system message is the
 * instructions (plus chain-of-thought guidance unless turned off) and nothing about tools.
 *
 * <p>The texts live in {@code dev/bellows/prompt/internal/*.md} on the class path, not in Java
 * strings, and every token of them is paid on every request, so each rule is said once. What
 * a tool is for (the built-ins {@code task_completion}, {@code ask_question}, {@code converse}
 * and {@code update_plan} included) is said by its own description in the catalog, so the
 * rules hold for whichever tools the registry has. The example call is of a tool the registry
 * has ({@code task_completion} when it is there), with arguments made from its schema. When the
 * catalog names servers the rules say in one sentence that {@code server_name} is only for a
 * tool not on server {@code local}, the parser's default.
 * The tag names taught are the first thinking tag and the first tool tag of the
 * {@link StreamOptions}, so what the model is told to write is what the stream parser looks for.
 *
 * <p>A builder is immutable and safe to share between threads. The system message is rendered
 * again whenever the registry has changed ({@link ToolRegistry#version()}), so a refreshed MCP
 * server's tools show up in the next prompt, and kept as long as it has not.
 */
public final class PromptBuilder {

    private static final PromptTemplate AGENT_LOOP = PromptTemplate.load("agent_loop");
    private static final PromptTemplate CHAIN_OF_THOUGHT = PromptTemplate.load("chain_of_thought");
    private static final PromptTemplate CHAIN_OF_THOUGHT_CHAT = PromptTemplate.load("chain_of_thought_chat");
    private static final PromptTemplate TOOL_CALLING_JSON = PromptTemplate.load("tool_calling_json");
    private static final PromptTemplate TOOL_CALLING_XML = PromptTemplate.load("tool_calling_xml");
    private static final PromptTemplate SERVER_NAME_JSON = PromptTemplate.load("server_name_json");
    private static final PromptTemplate SERVER_NAME_XML = PromptTemplate.load("server_name_xml");
    private static final PromptTemplate LOOP_END = PromptTemplate.load("loop_end");
    private static final PromptTemplate CURRENT_PLAN = PromptTemplate.load("current_plan");
    private static final PromptTemplate EXTRA_CONTEXT = PromptTemplate.load("extra_context");
    private static final PromptTemplate REMINDER = PromptTemplate.load("no_tool_call_reminder");
    private static final PromptTemplate TASK_COMPLETION_JSON = PromptTemplate.load("task_completion_json");
    private static final PromptTemplate TASK_COMPLETION_XML = PromptTemplate.load("task_completion_xml");

    private static final String SECTION_BREAK = "\n\n";

    private final ToolRegistry toolRegistry;
    private final ToolCallFormat toolCallFormat;
    private final ToolCatalogStyle toolCatalogStyle;
    private final StreamOptions streamOptions;
    private final boolean chainOfThought;
    private final String instructions;
    private final Map<String, String> tags;
    /** The system message of a plain chat, which never changes. */
    private final String chatSystemText;
    private final String reminder;
    /** The last system message and the registry version it was rendered from. */
    private volatile Rendered rendered;

    private record Rendered(long version, Message system) {
    }

    private PromptBuilder(Builder builder) {
        this.toolRegistry = builder.toolRegistry;
        this.toolCallFormat = builder.toolCallFormat;
        this.toolCatalogStyle = builder.toolCatalogStyle;
        this.streamOptions = builder.streamOptions;
        this.chainOfThought = builder.chainOfThought;
        this.instructions = builder.instructions.strip();
        this.tags = Map.of(
                "thinking_tag", streamOptions.thinkingTags().get(0),
                "tool_tag", streamOptions.toolTags().get(0));
        this.chatSystemText = join(List.of(instructions, chainOfThought ? CHAIN_OF_THOUGHT_CHAT.render(tags) : ""));

        String example = (toolCallFormat == ToolCallFormat.JSON ? TASK_COMPLETION_JSON : TASK_COMPLETION_XML)
                .render(tags);
        Map<String, String> reminderValues = new LinkedHashMap<>(tags);
        reminderValues.put("example", example);
        this.reminder = REMINDER.render(reminderValues);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The first message of every request, role {@link Role#SYSTEM}: the instructions, then
     * (with a tool registry) the loop's rules with chain of thought (unless turned off) and one
     * example call in the chosen {@link ToolCallFormat}, then the catalog of every tool the
     * registry holds now in the {@link ToolCatalogStyle} chosen. Sections are separated by a blank line; empty
     * instructions leave no gap.
     */
    public Message systemMessage() {
        if (toolRegistry == null) {
            return Message.system(chatSystemText);
        }
        // Rendered again only when the registry changed: it decides the example, the rules and the catalog.
        long version = toolRegistry.version();
        Rendered last = rendered;
        if (last != null && last.version() == version) {
            return last.system();
        }
        List<RegisteredTool> tools = toolRegistry.tools();   // one snapshot for the rules and the catalog
        Message system = Message.system(join(List.of(instructions, loopRules(tools), ToolCatalog.render(tools, toolCatalogStyle))));
        rendered = new Rendered(version, system);
        return system;
    }

    private String loopRules(List<RegisteredTool> tools) {
        boolean json = toolCallFormat == ToolCallFormat.JSON;
        String arguments = (json ? TOOL_CALLING_JSON : TOOL_CALLING_XML).render(tags);
        if (ToolCatalog.namesServers(tools, toolCatalogStyle)) {
            arguments += " " + (json ? SERVER_NAME_JSON : SERVER_NAME_XML).render(tags);
        }
        Map<String, String> values = new LinkedHashMap<>(tags);
        values.put("think", chainOfThought ? CHAIN_OF_THOUGHT.render(tags) + " " : "");
        values.put("example", exampleCall(tools));
        values.put("arguments", arguments);
        values.put("loop_end", tools.stream().anyMatch(tool -> tool.tool().loopBreaking())
                ? " " + LOOP_END.render(tags) : "");
        return AGENT_LOOP.render(values);
    }

    /** A call of task_completion when the registry has it, else of the first tool; a form when there is none. */
    private String exampleCall(List<RegisteredTool> tools) {
        RegisteredTool example = tools.stream()
                .filter(tool -> tool.serverName().equals(ToolCall.LOCAL_SERVER)
                        && tool.toolName().equals(BuiltinTools.TASK_COMPLETION))
                .findFirst()
                .orElse(tools.isEmpty() ? null : tools.getFirst());
        if (example == null) {
            return (toolCallFormat == ToolCallFormat.JSON ? TASK_COMPLETION_JSON : TASK_COMPLETION_XML).render(tags);
        }
        return ExampleCall.render(example, toolCallFormat, tags.get("tool_tag"));
    }

    /**
     * The messages to send: {@code [systemMessage(), history..., current turn]}. The current
     * turn is a new message: {@code currentTurn}'s text followed by the plan as a checklist
     * (when it has steps) in a {@code <current_plan>} section and then one
     * {@code <context name="...">} section per entry of {@code extraContext} (in the map's
     * order; entries whose value is blank are left out), with {@code currentTurn}'s media.
     * Keep {@code currentTurn} itself, not the returned copy, in memory, so that an old plan
     * is not repeated in the history.
     *
     * @param history      earlier messages, oldest first, without a system message (the
     *                     builder writes it); may be empty
     * @param currentTurn  a {@link Role#USER} message: the task, or an observation
     * @param plan         the current plan; {@code null} or empty for none
     * @param extraContext name to text, such as retrieved documents; {@code null} or empty for none
     * @throws IllegalArgumentException when {@code currentTurn} is not a user message or the
     *                                  history holds a system message
     */
    public List<Message> build(List<Message> history, Message currentTurn, Plan plan,
            Map<String, String> extraContext) {
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(currentTurn, "currentTurn");
        if (currentTurn.role() != Role.USER) {
            throw new IllegalArgumentException("the current turn must be a user message (the task or an"
                    + " observation), but it is a " + currentTurn.role().wireName() + " message");
        }
        for (Message message : history) {
            Objects.requireNonNull(message, "a message of the history is null");
            if (message.role() == Role.SYSTEM) {
                throw new IllegalArgumentException("the history holds a system message: leave it out,"
                        + " PromptBuilder puts its own system message first");
            }
        }
        List<String> parts = new ArrayList<>();
        parts.add(currentTurn.content());
        if (plan != null && !plan.steps().isEmpty()) {
            parts.add(CURRENT_PLAN.render(Map.of("checklist", plan.toChecklist())));
        }
        if (extraContext != null) {
            extraContext.forEach((name, content) -> {
                Objects.requireNonNull(name, "a name in the extra context is null");
                if (content != null && !content.isBlank()) {
                    parts.add(EXTRA_CONTEXT.render(Map.of("name", escapeAttribute(name), "content", content.strip())));
                }
            });
        }
        List<Message> messages = new ArrayList<>(history.size() + 2);
        messages.add(systemMessage());
        messages.addAll(history);
        messages.add(Message.user(join(parts), currentTurn.media()));   // a tool's images stay with the observation
        return List.copyOf(messages);
    }

    /**
     * What to send (as a user message) after an answer without a tool call: it says that
     * nothing was done, that every answer must call a tool, and shows a {@code task_completion}
     * call in the chosen format for when the task is done.
     */
    public String noToolCallReminder() {
        return reminder;
    }

    /** How the system message lists the tools. */
    public ToolCatalogStyle toolCatalogStyle() {
        return toolCatalogStyle;
    }

    /** The format the system message teaches. */
    public ToolCallFormat toolCallFormat() {
        return toolCallFormat;
    }

    /** The stream options whose first thinking and tool tag names the prompts teach. */
    public StreamOptions streamOptions() {
        return streamOptions;
    }

    /** True when the prompt asks for tool calls (a registry was given), false for plain chat. */
    public boolean hasTools() {
        return toolRegistry != null;
    }

    /** True when the system message asks the model to think in the thinking tag first. */
    public boolean chainOfThought() {
        return chainOfThought;
    }

    private static String escapeAttribute(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String join(List<String> parts) {
        // Most current turns are one part (the task or an observation): that part itself.
        String only = "";
        int nonEmpty = 0;
        for (String part : parts) {
            if (!part.isEmpty()) {
                only = part;
                nonEmpty++;
            }
        }
        if (nonEmpty <= 1) {
            return only;
        }
        StringJoiner joined = new StringJoiner(SECTION_BREAK);
        for (String part : parts) {
            if (!part.isEmpty()) {
                joined.add(part);
            }
        }
        return joined.toString();
    }

    /** Builds a {@link PromptBuilder}; every setter replaces what was set before. */
    public static final class Builder {
        private String instructions = "";
        private ToolRegistry toolRegistry;
        private ToolCallFormat toolCallFormat = ToolCallFormat.JSON;
        private ToolCatalogStyle toolCatalogStyle = ToolCatalogStyle.JSON_SCHEMA;
        private StreamOptions streamOptions = StreamOptions.defaults();
        private boolean chainOfThought = true;

        private Builder() {
        }

        /** The user's own system text (persona, task rules), first in the system message; {@code null} means none. */
        public Builder instructions(String instructions) {
            this.instructions = instructions == null ? "" : instructions;
            return this;
        }

        /** The tools to offer; {@code null} (the default) makes the prompts those of a plain chat. */
        public Builder toolRegistry(ToolRegistry toolRegistry) {
            this.toolRegistry = toolRegistry;
            return this;
        }

        /** The tool-call format to teach; {@link ToolCallFormat#JSON} by default. */
        public Builder toolCallFormat(ToolCallFormat toolCallFormat) {
            this.toolCallFormat = Objects.requireNonNull(toolCallFormat, "toolCallFormat");
            return this;
        }

        /**
         * How the catalog lists the tools: {@link ToolCatalogStyle#JSON_SCHEMA} by default (each
         * tool's server, name, description and JSON Schema); {@link ToolCatalogStyle#SIGNATURES}
         * departs from it to save tokens.
         */
        public Builder toolCatalog(ToolCatalogStyle toolCatalogStyle) {
            this.toolCatalogStyle = Objects.requireNonNull(toolCatalogStyle, "toolCatalogStyle");
            return this;
        }

        /** The stream parser's options, whose first thinking and tool tag names are taught; defaults when {@code null}. */
        public Builder streamOptions(StreamOptions streamOptions) {
            this.streamOptions = streamOptions == null ? StreamOptions.defaults() : streamOptions;
            return this;
        }

        /** Whether to ask the model to think in the thinking tag before it acts; true by default. */
        public Builder chainOfThought(boolean chainOfThought) {
            this.chainOfThought = chainOfThought;
            return this;
        }

        public PromptBuilder build() {
            return new PromptBuilder(this);
        }
    }
}
