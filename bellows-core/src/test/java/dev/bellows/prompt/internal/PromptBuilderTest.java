package dev.bellows.prompt.internal;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.prompt.SchemaTool;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.prompt.ToolCatalogStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.internal.ToolCallDecoder;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.BuiltinTools;
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

    private static final ObjectMapper JSON = Jackson.JSON;

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
        assertThat(prompts.systemMessage().content()).contains("server_name \"files\":\nread_file: Reads a file.\n{\"type\":\"object\"}");
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

        List<String> order = List.of("Be brief.", "Do the user's task in a loop.", "<thinking>", "<tool>\n",
                "Arguments are strict JSON.", "Every answer must call a tool", "\n\nserver_name \"local\":\n",
                "\ntask_completion: ");
        List<Integer> positions = order.stream().map(system::indexOf).toList();
        assertThat(positions).doesNotContain(-1).isSorted();
        assertThat(system).startsWith("Be brief.\n\nDo the user's task").endsWith("\"required\":[\"steps\"],\"additionalProperties\":false}");
    }

    /** The CLI contract: the catalog holds every tool's server, name, description and JSON Schema. */
    @Test
    void theCatalogListsEveryToolWithItsServerDescriptionAndWholeSchemaAndFollowsTheRegistry() throws Exception {
        ToolRegistry registry = new ToolRegistry();
        BuiltinTools.all().forEach(registry::register);
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(registry).build();

        String before = prompts.systemMessage().content();
        assertThat(before).contains("\n\nserver_name \"local\":\ntask_completion: Ends the loop with the final answer",
                "\"server_name\" defaults to \"local\".");
        for (var tool : BuiltinTools.all()) {
            // the line after "name: description" is the registered schema, whole and minified
            String head = "\n" + tool.name() + ": " + tool.description() + "\n";
            assertThat(before).contains(head);
            String schemaLine = before.substring(before.indexOf(head) + head.length()).lines().findFirst().orElseThrow();
            assertThat(JSON.readTree(schemaLine)).isEqualTo(tool.inputSchema());
            assertThat(schemaLine).isEqualTo(JSON.writeValueAsString(tool.inputSchema()));
        }

        registry.register("files", SchemaTool.of("read_file", "Reads {{path}}.", "{\"type\": \"object\"}"));
        String after = prompts.systemMessage().content();
        assertThat(after).contains("\n\nserver_name \"local\":\ntask_completion: ",
                "\n\nserver_name \"files\":\nread_file: Reads {{path}}.\n{\"type\":\"object\"}");
    }

    @Test
    void theSchemaIsShownAsRegisteredEvenWhereASignatureCouldNotSayIt() throws Exception {
        String schema = """
                {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Move",
                 "type": "object", "$defs": {"p": {"type": "string", "pattern": "^/"}},
                 "properties": {"from": {"$ref": "#/$defs/p"}, "to": {"$ref": "#/$defs/p", "description": "Ziel, über /"}},
                 "required": ["from", "to"], "additionalProperties": false,
                 "allOf": [{"not": {"required": ["force"]}}]}""";
        ToolRegistry registry = new ToolRegistry().register(SchemaTool.of("move", "  ", schema));

        String system = PromptBuilder.builder().toolRegistry(registry).build().systemMessage().content();

        // a blank description leaves the name alone; the schema line keeps every keyword in its order
        String catalog = system.substring(system.indexOf("\n\nserver_name \"local\":\n") + 2);
        assertThat(catalog.lines().toList()).hasSize(3);
        assertThat(catalog.lines().toList().get(1)).isEqualTo("move");
        assertThat(catalog.lines().toList().get(2)).isEqualTo(JSON.writeValueAsString(JSON.readTree(schema)))
                .contains("\"title\":\"Move\"", "über", "\"additionalProperties\":false");
    }

    @Test
    void signaturesAreAnOptInThatNamesServersOnlyWhenSomeToolIsNotLocal() {
        ToolRegistry registry = new ToolRegistry();
        BuiltinTools.all().forEach(registry::register);
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(registry).toolCatalog(ToolCatalogStyle.SIGNATURES)
                .build();

        String before = prompts.systemMessage().content();
        for (var tool : BuiltinTools.all()) {
            assertThat(before).contains("\n" + ToolSignature.render(tool.name(), tool.description(), tool.inputSchema()));
        }
        assertThat(before).contains("\n\nTools:\n// Ends the loop with the final answer")
                .contains("update_plan(steps: {description: string, status: \"pending\" | \"in_progress\" | \"completed\"}[])")
                .doesNotContain("server_name", "{\"type\"");   // every tool is local: the model never writes a server

        registry.register("files", SchemaTool.of("read_file", "Reads {{path}}.", "{\"type\": \"object\"}"));
        String after = prompts.systemMessage().content();
        assertThat(after).contains("\"server_name\" defaults to \"local\".",
                "\n\nserver_name \"local\":\n// Ends the loop with the final answer",
                "\n\nserver_name \"files\":\n// Reads {{path}}.\nread_file()");
        assertThat(PromptBuilder.builder().build().toolCatalogStyle()).isEqualTo(ToolCatalogStyle.JSON_SCHEMA);
        assertThat(prompts.toolCatalogStyle()).isEqualTo(ToolCatalogStyle.SIGNATURES);
    }

    @Test
    void anEmptyRegistrySaysThatNoToolIsAvailable() {
        String system = PromptBuilder.builder().toolRegistry(new ToolRegistry()).build().systemMessage().content();

        assertThat(system).endsWith("\n\nTools: none.").doesNotContain("Calls that end the loop");
    }

    @Test
    void emptyInstructionsLeaveNoGapAndPlainChatWithoutThoughtIsEmpty() {
        assertThat(PromptBuilder.builder().toolRegistry(new ToolRegistry()).build().systemMessage().content())
                .startsWith("Do the user's task");
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

        assertThat(system).doesNotContain("<thinking>", "think").contains("In each answer, call tools, one <tool> block");
    }

    @Test
    void theConfiguredTagNamesAreTaught() {
        StreamOptions options = StreamOptions.builder().thinkingTags("reasoning", "think").toolTags("call", "tool")
                .build();
        PromptBuilder prompts = PromptBuilder.builder().toolRegistry(new ToolRegistry()).streamOptions(options)
                .build();

        assertThat(prompts.systemMessage().content()).contains("think first in <reasoning>…</reasoning>",
                "one <call> block per call", "<call>\n{\"tool_name\"").doesNotContain("<thinking>", "<tool>");
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
        assertThat(call.toolName()).isEqualTo("task_completion");
        var result = BuiltinTools.taskCompletion().call(ToolContext.of("local", "task_completion"), call.arguments());
        assertThat(result.output()).isEqualTo("…");
    }

    @ParameterizedTest
    @EnumSource(ToolCallFormat.class)
    void withoutTaskCompletionTheExampleCallsTheFirstToolWithArgumentsItsSchemaAccepts(ToolCallFormat format)
            throws Exception {
        String schema = """
                {"type": "object", "properties": {
                  "query": {"type": "string", "minLength": 1},
                  "limit": {"type": "integer", "minimum": 1},
                  "mode": {"type": "string", "enum": ["fast", "exact"]},
                  "filters": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
                    "field": {"type": "string"}, "value": {"anyOf": [{"type": "number"}, {"type": "string"}]},
                    "note": {"type": "string"}}, "required": ["field", "value"]}},
                  "verbose": {"type": "boolean"}},
                 "required": ["query", "limit", "mode", "filters"], "additionalProperties": false}""";
        ToolRegistry registry = new ToolRegistry().register("search", SchemaTool.of("find", "Finds.", schema));
        String system = PromptBuilder.builder().toolRegistry(registry).toolCallFormat(format).build()
                .systemMessage().content();

        List<String> blocks = toolBlocks(system);
        assertThat(blocks).hasSize(1);
        ToolCall call = (ToolCall) ToolCallDecoder.decode(blocks.get(0));
        assertThat(call.serverName()).isEqualTo("search");
        assertThat(call.toolName()).isEqualTo("find");
        JsonNode checked = ArgumentSchema.compile((ObjectNode) JSON.readTree(schema)).check("find", call.arguments());
        assertThat(checked.get("filters").get(0).get("field").isString()).isTrue();
        assertThat(system).doesNotContain("Calls that end the loop");   // no tool here ends it
    }

    @ParameterizedTest
    @EnumSource(ToolCallFormat.class)
    void theReminderAsksForAToolCallWithATaskCompletionExampleInTheChosenFormat(ToolCallFormat format)
            throws Exception {
        String reminder = withTools(format).noToolCallReminder();

        assertThat(reminder).contains("called no tool", "task_completion", "ask_question", "converse");
        List<String> blocks = toolBlocks(reminder);
        assertThat(blocks).hasSize(1);
        assertThat(blocks.get(0).strip()).startsWith(format == ToolCallFormat.JSON ? "{\"tool_name\"" : "<tool_name>");
        ToolCall call = (ToolCall) ToolCallDecoder.decode(blocks.get(0));
        assertThat(call.toolName()).isEqualTo("task_completion");
        var result = BuiltinTools.taskCompletion().call(ToolContext.of("local", "task_completion"), call.arguments());
        assertThat(result.output()).isEqualTo("The complete answer for the user.");
    }

    @Test
    void theFormatsDifferOnlyInTheExampleAndTheArgumentsRule() {
        String json = withTools(ToolCallFormat.JSON).systemMessage().content();
        String xml = withTools(ToolCallFormat.XML).systemMessage().content();

        assertThat(withoutFormat(json)).isEqualTo(withoutFormat(xml));
        assertThat(json).contains("<tool>\n{\"tool_name\":\"task_completion\",\"arguments\":{\"result\":\"…\"}}\n</tool>",
                "Arguments are strict JSON.");
        assertThat(xml).contains("<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>…</result></arguments>\n</tool>",
                "Arguments: one element per parameter", "<![CDATA[");
    }

    private static String withoutFormat(String system) {
        return system.replaceAll("(?s)<tool>.*</tool>", "").replaceAll("Arguments[: ][^\\n]*?\\. Calls", "Calls");
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
