package dev.bellows.prompt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Assembles what the model is sent on each iteration of the agent loop:
 * <ol>
 *   <li>the {@linkplain #systemMessage() system message}: the user's instructions, then the
 *       agent's capabilities, the loop rules, chain-of-thought guidance, the tool-call format
 *       with an example, the tool-use rules, and the catalog of every tool (server, name,
 *       description, JSON Schema);</li>
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
 * <p>The texts live in {@code dev/bellows/prompt/*.md} on the class path, not in Java
 * strings. They describe the loop Bellows actually runs: the built-in tools
 * {@code task_completion}, {@code ask_question}, {@code converse} (which end the loop) and
 * {@code update_plan}, so the registry is expected to hold {@code BuiltinTools.all()}; several
 * calls in one answer run in order; the observation comes back as a user message. The tag
 * names taught are the first thinking tag and the first tool tag of the {@link StreamOptions},
 * so what the model is told to write is what the stream parser looks for.
 *
 * <p>A builder is immutable and safe to share between threads. The catalog is rendered again
 * whenever the registry has changed ({@link ToolRegistry#version()}), so a refreshed MCP
 * server's tools show up in the next prompt, and kept as long as it has not.
 */
public final class PromptBuilder {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final PromptTemplate CAPABILITIES = PromptTemplate.load("system_capabilities");
    private static final PromptTemplate AGENT_LOOP = PromptTemplate.load("agent_loop");
    private static final PromptTemplate CHAIN_OF_THOUGHT = PromptTemplate.load("chain_of_thought");
    private static final PromptTemplate CHAIN_OF_THOUGHT_CHAT = PromptTemplate.load("chain_of_thought_chat");
    private static final PromptTemplate TOOL_CALLING_JSON = PromptTemplate.load("tool_calling_json");
    private static final PromptTemplate TOOL_CALLING_XML = PromptTemplate.load("tool_calling_xml");
    private static final PromptTemplate TOOL_USE_RULES = PromptTemplate.load("tool_use_rules");
    private static final PromptTemplate TOOL_CATALOG = PromptTemplate.load("tool_catalog");
    private static final PromptTemplate CURRENT_PLAN = PromptTemplate.load("current_plan");
    private static final PromptTemplate EXTRA_CONTEXT = PromptTemplate.load("extra_context");
    private static final PromptTemplate REMINDER = PromptTemplate.load("no_tool_call_reminder");
    private static final PromptTemplate TASK_COMPLETION_JSON = PromptTemplate.load("task_completion_json");
    private static final PromptTemplate TASK_COMPLETION_XML = PromptTemplate.load("task_completion_xml");

    private static final String SECTION_BREAK = "\n\n";

    private final ToolRegistry toolRegistry;
    private final ToolCallFormat toolCallFormat;
    private final StreamOptions streamOptions;
    private final boolean chainOfThought;
    /** The system message before the catalog: everything that does not change between calls. */
    private final String fixedSystemText;
    private final String reminder;
    /** The last system message and the registry version it was rendered from. */
    private volatile Rendered rendered;

    private record Rendered(long version, Message system) {
    }

    private PromptBuilder(Builder builder) {
        this.toolRegistry = builder.toolRegistry;
        this.toolCallFormat = builder.toolCallFormat;
        this.streamOptions = builder.streamOptions;
        this.chainOfThought = builder.chainOfThought;
        Map<String, String> tags = Map.of(
                "thinking_tag", streamOptions.thinkingTags().get(0),
                "tool_tag", streamOptions.toolTags().get(0));

        List<String> sections = new ArrayList<>();
        sections.add(builder.instructions.strip());
        if (toolRegistry == null) {
            if (chainOfThought) {
                sections.add(CHAIN_OF_THOUGHT_CHAT.render(tags));
            }
        } else {
            sections.add(CAPABILITIES.render(tags));
            sections.add(AGENT_LOOP.render(tags));
            if (chainOfThought) {
                sections.add(CHAIN_OF_THOUGHT.render(tags));
            }
            sections.add((toolCallFormat == ToolCallFormat.JSON ? TOOL_CALLING_JSON : TOOL_CALLING_XML).render(tags));
            sections.add(TOOL_USE_RULES.render(tags));
        }
        this.fixedSystemText = join(sections);

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
     * (with a tool registry) the capabilities, agent loop rules, chain of thought (unless turned
     * off), the tool-call format with an example in the chosen {@link ToolCallFormat}, the
     * tool-use rules and the catalog of every tool the registry holds now, grouped by server,
     * each with its description and its JSON Schema on one line. Sections are separated by a
     * blank line; empty instructions leave no gap.
     */
    public Message systemMessage() {
        if (toolRegistry == null) {
            return Message.system(fixedSystemText);
        }
        // Rendered again only when the registry changed: the catalog is most of the prompt.
        long version = toolRegistry.version();
        Rendered last = rendered;
        if (last != null && last.version() == version) {
            return last.system();
        }
        Message system = Message.system(join(List.of(fixedSystemText, catalog(toolRegistry.tools()))));
        rendered = new Rendered(version, system);
        return system;
    }

    /**
     * The messages to send: {@code [systemMessage(), history..., current turn]}. The current
     * turn is a new message: {@code currentTurn}'s text followed by the plan as a checklist
     * (when it has steps) in a {@code <current_plan>} section and then one
     * {@code <context name="...">} section per entry of {@code extraContext} (in the map's
     * order; entries whose value is blank are left out). Keep {@code currentTurn} itself, not
     * the returned copy, in memory, so that an old plan is not repeated in the history.
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
        messages.add(Message.user(join(parts)));
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

    static String catalog(List<RegisteredTool> tools) {
        Map<String, List<RegisteredTool>> byServer = tools.stream().collect(
                Collectors.groupingBy(RegisteredTool::serverName, LinkedHashMap::new, Collectors.toList()));
        String servers = byServer.isEmpty()
                ? "(no tools are available)"
                : byServer.entrySet().stream()
                        .map(entry -> serverSection(entry.getKey(), entry.getValue()))
                        .collect(Collectors.joining(SECTION_BREAK));
        return TOOL_CATALOG.render(Map.of("servers", servers));
    }

    private static String serverSection(String serverName, List<RegisteredTool> tools) {
        return Stream.concat(
                        Stream.of("server_name \"" + serverName + "\":"),
                        tools.stream().map(PromptBuilder::toolEntry))
                .collect(Collectors.joining(SECTION_BREAK));
    }

    private static String toolEntry(RegisteredTool registered) {
        String description = registered.tool().description() == null ? "" : registered.tool().description().strip();
        return "tool_name \"" + registered.toolName() + "\"\n"
                + "description: " + description.replace("\n", "\n  ") + "\n"
                + "arguments (JSON Schema): " + compact(registered);
    }

    private static String compact(RegisteredTool registered) {
        try {
            return JSON.writeValueAsString(registered.tool().inputSchema());
        } catch (JsonProcessingException e) {
            // A JsonNode always serialises; this is only here for the checked exception.
            throw new IllegalStateException("cannot write the schema of tool " + registered.toolName(), e);
        }
    }

    private static String escapeAttribute(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String join(List<String> parts) {
        return parts.stream().filter(part -> !part.isEmpty()).collect(Collectors.joining(SECTION_BREAK));
    }

    /** Builds a {@link PromptBuilder}; every setter replaces what was set before. */
    public static final class Builder {
        private String instructions = "";
        private ToolRegistry toolRegistry;
        private ToolCallFormat toolCallFormat = ToolCallFormat.JSON;
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
