package dev.bellows.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.ToolCallDecoder;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.LoopBreak;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PromptBuilderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static PromptBuilder withTools(ToolCallFormat format) {
        ToolRegistry registry = new ToolRegistry();
        BuiltinTools.all().forEach(registry::register);
        return PromptBuilder.builder().instructions("Be brief.").toolRegistry(registry).toolCallFormat(format).build();
    }

    @Test
    void theCatalogIsRenderedOnceAndAgainWhenTheRegistryChanges() {
        ToolRegistry registry = new ToolRegistry();
        BuiltinTools.all().forEach(registry::register);
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(registry).build();
        Message first = prompts.systemMessage();
        long version = registry.version();

        assertThat(prompts.systemMessage()).isSameAs(first);        // nothing changed: not rendered again
        registry.register("files", SchemaTool.of("read_file", "Reads a file.", "{\"type\": \"object\"}"));

        assertThat(registry.version()).isNotEqualTo(version);
        assertThat(first.content()).doesNotContain("read_file");
        assertThat(prompts.systemMessage().content()).contains("server_name \"files\":\n\ntool_name \"read_file\"");
    }

    @Test
    void buildPutsTheSystemMessageFirstThenTheHistoryThenTheCurrentTurn() {
        PromptBuilder prompts = withTools(ToolCallFormat.JSON);
        List<Message> history = List.of(Message.user("first task"), Message.assistant("<tool>{...}</tool>"),
                Message.user("<observation>ok</observation>"));

        List<Message> messages = prompts.build(history, Message.user("next task"), Plan.empty(), Map.of());

        assertThat(messages).containsExactly(prompts.systemMessage(), history.get(0), history.get(1), history.get(2),
                Message.user("next task"));
    }

    @Test
    void thePlanAndTheExtraContextAreAppendedToTheCurrentTurnInThatOrder() {
        PromptBuilder prompts = withTools(ToolCallFormat.JSON);
        Plan plan = new Plan(List.of(new PlanStep("Read the test", PlanStatus.COMPLETED),
                new PlanStep("Fix the parser", PlanStatus.IN_PROGRESS), new PlanStep("Run it", PlanStatus.PENDING)));
        Map<String, String> context = new LinkedHashMap<>();
        context.put("docs", "  The parser is in Parser.java.\n");
        context.put("empty", "   ");
        context.put("a \"quoted\" <name>", "x & y");

        List<Message> messages = prompts.build(List.of(Message.user("earlier")), Message.user("<observation>\n"
                + "<read_file>\nclass Parser {}\n</read_file>\n</observation>"), plan, context);

        assertThat(messages).hasSize(3);
        assertThat(messages.get(1)).isEqualTo(Message.user("earlier"));
        assertThat(messages.get(2).role()).isEqualTo(Role.USER);
        assertThat(messages.get(2).content()).isEqualTo("""
                <observation>
                <read_file>
                class Parser {}
                </read_file>
                </observation>

                <current_plan>
                Your plan so far ([x] completed, [>] in progress, [ ] pending); update it with update_plan as you go:
                [x] Read the test
                [>] Fix the parser
                [ ] Run it
                </current_plan>

                <context name="docs">
                The parser is in Parser.java.
                </context>

                <context name="a &quot;quoted&quot; &lt;name&gt;">
                x & y
                </context>""");
    }

    @Test
    void anEmptyPlanAndNoContextLeaveTheCurrentTurnAsItIs() {
        PromptBuilder prompts = withTools(ToolCallFormat.JSON);

        assertThat(prompts.build(List.of(), Message.user("task"), Plan.empty(), Map.of()))
                .last().isEqualTo(Message.user("task"));
        assertThat(prompts.build(List.of(), Message.user("task"), null, null))
                .last().isEqualTo(Message.user("task"));
    }

    @Test
    void theCurrentTurnMustBeAUserMessageAndTheHistoryHoldsNoSystemMessage() {
        PromptBuilder prompts = withTools(ToolCallFormat.JSON);

        assertThatThrownBy(() -> prompts.build(List.of(), Message.assistant("hi"), null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be a user message");
        assertThatThrownBy(() -> prompts.build(List.of(Message.system("old")), Message.user("hi"), null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system message");
    }

    @Test
    void theSectionsComeInTheDocumentedOrder() {
        String system = withTools(ToolCallFormat.JSON).systemMessage().content();

        List<String> order = List.of("Be brief.", "<system_capabilities>", "<agent_loop>", "<chain_of_thought>",
                "<tool_calling>", "<tool_use_rules>", "<tool_catalog>");
        List<Integer> positions = order.stream().map(system::indexOf).toList();
        assertThat(positions).doesNotContain(-1).isSorted();
        assertThat(system).startsWith("Be brief.\n\n<system_capabilities>").endsWith("</tool_catalog>");
    }

    @Test
    void theCatalogListsEveryToolWithItsSchemaAndFollowsTheRegistry() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        BuiltinTools.all().forEach(registry::register);
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(registry).build();

        String before = prompts.systemMessage().content();
        for (var tool : BuiltinTools.all()) {
            assertThat(before).contains("tool_name \"" + tool.name() + "\"\n")
                    .contains("arguments (JSON Schema): " + JSON.writeValueAsString(tool.inputSchema()));
        }
        assertThat(before).doesNotContain("server_name \"files\"");

        registry.register("files", SchemaTool.of("read_file", "Reads {{path}}.", "{\"type\": \"object\"}"));
        assertThat(prompts.systemMessage().content())
                .contains("server_name \"files\":\n\ntool_name \"read_file\"\ndescription: Reads {{path}}.\n");
    }

    @Test
    void anEmptyRegistrySaysThatNoToolIsAvailable() {
        String system = PromptBuilder.builder().toolRegistry(new ToolRegistry()).build().systemMessage().content();

        assertThat(system).contains("<tool_catalog>").contains("(no tools are available)");
    }

    @Test
    void emptyInstructionsLeaveNoGapAndPlainChatWithoutThoughtIsEmpty() {
        assertThat(PromptBuilder.builder().toolRegistry(new ToolRegistry()).build().systemMessage().content())
                .startsWith("<system_capabilities>");
        assertThat(PromptBuilder.builder().instructions(null).chainOfThought(false).build().systemMessage())
                .isEqualTo(Message.system(""));
        assertThat(PromptBuilder.builder().instructions("  Hi.\n").chainOfThought(false).build().systemMessage())
                .isEqualTo(Message.system("Hi."));
    }

    @Test
    void plainChatHasNoToolSections() {
        PromptBuilder chat = PromptBuilder.builder().instructions("Be kind.").build();

        assertThat(chat.hasTools()).isFalse();
        assertThat(chat.systemMessage().content()).startsWith("Be kind.\n\n<chain_of_thought>")
                .doesNotContain("<tool", "task_completion", "update_plan");
    }

    @Test
    void chainOfThoughtCanBeTurnedOff() {
        ToolRegistry registry = new ToolRegistry();
        String system = PromptBuilder.builder().toolRegistry(registry).chainOfThought(false).build()
                .systemMessage().content();

        assertThat(system).doesNotContain("<chain_of_thought>").contains("<agent_loop>", "<tool_calling>");
    }

    @Test
    void theConfiguredTagNamesAreTaught() {
        StreamOptions options = StreamOptions.builder().thinkingTags("reasoning", "think").toolTags("call", "tool")
                .build();
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(new ToolRegistry()).streamOptions(options)
                .build();

        assertThat(prompts.systemMessage().content()).contains("in a <reasoning> block", "write a <call> block",
                "<call>\n{\"server_name\"").doesNotContain("<thinking>", "<tool>");
        assertThat(prompts.noToolCallReminder()).contains("in a <call> block", "<call>\n").doesNotContain("<tool>");
    }

    @ParameterizedTest
    @EnumSource(ToolCallFormat.class)
    void theExampleInTheSystemMessageIsWhatTheParserReadsAndTheToolAccepts(ToolCallFormat format) throws Exception {
        String system = withTools(format).systemMessage().content();

        List<String> blocks = toolBlocks(system);
        assertThat(blocks).hasSize(1);
        ToolCall call = (ToolCall) ToolCallDecoder.decode(blocks.get(0));
        assertThat(call.serverName()).isEqualTo("local");
        assertThat(call.toolName()).isEqualTo("update_plan");
        var result = BuiltinTools.updatePlan().call(ToolContext.of("local", "update_plan"), call.arguments());
        assertThat(((Plan) result.output()).toChecklist()).isEqualTo("[>] Read the failing test\n[ ] Fix the parser");
    }

    @ParameterizedTest
    @EnumSource(ToolCallFormat.class)
    void theReminderAsksForAToolCallWithATaskCompletionExampleInTheChosenFormat(ToolCallFormat format)
            throws Exception {
        String reminder = withTools(format).noToolCallReminder();

        assertThat(reminder).contains("called no tool", "task_completion", "ask_question", "converse");
        List<String> blocks = toolBlocks(reminder);
        assertThat(blocks).hasSize(1);
        assertThat(blocks.get(0).strip()).startsWith(format == ToolCallFormat.JSON ? "{" : "<server_name>");
        ToolCall call = (ToolCall) ToolCallDecoder.decode(blocks.get(0));
        assertThat(call.toolName()).isEqualTo("task_completion");
        var result = BuiltinTools.taskCompletion().call(ToolContext.of("local", "task_completion"), call.arguments());
        assertThat(((LoopBreak) result.output()).text()).isEqualTo("The complete answer for the user.");
    }

    @Test
    void theFormatsDifferOnlyInTheToolCallingSection() {
        String json = withTools(ToolCallFormat.JSON).systemMessage().content();
        String xml = withTools(ToolCallFormat.XML).systemMessage().content();

        assertThat(withoutToolCalling(json)).isEqualTo(withoutToolCalling(xml));
        assertThat(json).contains("holding one JSON object");
        assertThat(xml).contains("holding three elements");
    }

    private static String withoutToolCalling(String system) {
        return system.replaceAll("(?s)<tool_calling>.*</tool_calling>", "");
    }

    /** The contents of the {@code <tool>} blocks, as the stream processor would hand them to the decoder. */
    private static List<String> toolBlocks(String text) {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = Pattern.compile("(?ms)^<tool>\\n(.*?)\\n</tool>$").matcher(text);
        while (matcher.find()) {
            blocks.add(matcher.group(1).strip());
        }
        return blocks;
    }
}
