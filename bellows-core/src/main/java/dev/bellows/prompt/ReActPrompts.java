package dev.bellows.prompt;

import dev.bellows.format.ActionFormat;
import dev.bellows.format.TextFormat;
import dev.bellows.prompt.internal.ExampleCall;
import dev.bellows.prompt.internal.PromptTemplate;
import dev.bellows.prompt.internal.ToolCatalog;
import dev.bellows.provider.Message;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The prompt texts of the ReAct loop ({@code dev.bellows.agent.ReActAgent}), read from the
 * {@code react_*.md} resources: the system message (instructions, the loop, the sections as
 * the {@link TextFormat} describes them, how to write an action in the {@link ActionFormat},
 * the tool catalog) and the messages that correct the model.
 *
 * <p>The section names are fixed: {@code thought}, {@code action}, {@code answer}, and the
 * {@code observation} the tool chain writes. Immutable and safe to share between threads.
 */
public final class ReActPrompts {

    public static final String THOUGHT = "thought";
    public static final String ACTION = "action";
    public static final String ANSWER = "answer";
    public static final String OBSERVATION = "observation";

    private static final PromptTemplate LOOP = PromptTemplate.load("react_loop");
    private static final PromptTemplate ACTION_JSON = PromptTemplate.load("react_action_json");
    private static final PromptTemplate ACTION_YAML = PromptTemplate.load("react_action_yaml");
    private static final PromptTemplate SERVER_NAME_JSON = PromptTemplate.load("server_name_json");
    private static final PromptTemplate SERVER_NAME_YAML = PromptTemplate.load("server_name_yaml");
    private static final PromptTemplate NO_ACTION = PromptTemplate.load("react_no_action");
    private static final PromptTemplate ANSWER_IGNORED = PromptTemplate.load("react_answer_ignored");
    private static final Map<String, String> NAMES = Map.of(
            "thought", THOUGHT, "action", ACTION, "answer", ANSWER, "observation", OBSERVATION);

    private final String loopText;
    private final ActionFormat actionFormat;
    private final ToolRegistry toolRegistry;
    private final ToolCatalogStyle toolCatalogStyle;
    /** The last system message and the registry version it was rendered from. */
    private volatile Rendered rendered;

    private record Rendered(long version, Message system) {
    }

    /**
     * The prompts with the default catalog, {@link ToolCatalogStyle#JSON_SCHEMA}.
     *
     * @param textFormat its {@link TextFormat#describeStructure()} is shown; register the
     *                   sections first
     */
    public ReActPrompts(String instructions, TextFormat textFormat, ActionFormat actionFormat, ToolRegistry toolRegistry) {
        this(instructions, textFormat, actionFormat, toolRegistry, ToolCatalogStyle.JSON_SCHEMA);
    }

    /**
     * @param textFormat       its {@link TextFormat#describeStructure()} is shown; register the
     *                         sections first
     * @param toolCatalogStyle how the catalog lists the tools
     */
    public ReActPrompts(String instructions, TextFormat textFormat, ActionFormat actionFormat, ToolRegistry toolRegistry,
            ToolCatalogStyle toolCatalogStyle) {
        Objects.requireNonNull(instructions, "instructions");
        this.toolCatalogStyle = Objects.requireNonNull(toolCatalogStyle, "toolCatalogStyle");
        Objects.requireNonNull(textFormat, "textFormat");
        this.actionFormat = Objects.requireNonNull(actionFormat, "actionFormat");
        this.toolRegistry = Objects.requireNonNull(toolRegistry, "toolRegistry");
        Map<String, String> values = new java.util.HashMap<>(NAMES);
        values.put("structure", textFormat.describeStructure());
        this.loopText = join(List.of(instructions.strip(), LOOP.render(values)));
    }

    /**
     * The first message of every request: the instructions, the loop, how to write an action
     * (with an example call of the first tool) and the catalog of the tools the registry holds
     * now, in the {@link ToolCatalogStyle} chosen; rendered again only when the registry has changed.
     */
    public Message systemMessage() {
        long version = toolRegistry.version();
        Rendered last = rendered;
        if (last != null && last.version() == version) {
            return last.system();
        }
        List<RegisteredTool> tools = toolRegistry.tools();
        Message system = Message.system(join(List.of(loopText, action(tools), ToolCatalog.render(tools, toolCatalogStyle))));
        rendered = new Rendered(version, system);
        return system;
    }

    private String action(List<RegisteredTool> tools) {
        boolean json = actionFormat == ActionFormat.JSON;
        Map<String, String> values = new java.util.HashMap<>(NAMES);
        values.put("example", tools.isEmpty() ? (json ? "{\"tool_name\":\"…\",\"arguments\":{}}" : "tool_name: …\narguments: {}")
                : json ? ExampleCall.json(tools.getFirst()) : ExampleCall.yaml(tools.getFirst()));
        values.put("server", !ToolCatalog.namesServers(tools, toolCatalogStyle) ? ""
                : " " + (json ? SERVER_NAME_JSON : SERVER_NAME_YAML).render(Map.of()));
        return (json ? ACTION_JSON : ACTION_YAML).render(values);
    }

    /** Sent when an answer has sections but neither an action nor an answer. */
    public String noActionReminder() {
        return NO_ACTION.render(NAMES);
    }

    /** Appended to the observation when an answer held both an action and an answer. */
    public String answerIgnoredNote() {
        return ANSWER_IGNORED.render(NAMES);
    }

    private static String join(List<String> parts) {
        return parts.stream().filter(part -> !part.isEmpty()).collect(Collectors.joining("\n\n"));
    }
}
