package dev.bellows.prompt;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.TextSection;
import dev.bellows.provider.Message;
import dev.bellows.tool.ToolRegistry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ReActPromptsTest {

    private static final String SCHEMA = """
            {"type": "object", "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}},
             "required": ["path", "lines"]}""";

    private static ReActPrompts prompts(ActionFormat format, ToolRegistry registry) {
        MarkdownFormat text = new MarkdownFormat();
        text.registerSection(new TextSection(ReActPrompts.THOUGHT, "your reasoning"));
        text.registerSection(new TextSection(ReActPrompts.ACTION, "the tool calls"));
        text.registerSection(new TextSection(ReActPrompts.ANSWER, "the answer"));
        return new ReActPrompts("Be useful.", text, format, registry);
    }

    /** The line after "like this:", up to the line that explains the arguments. */
    private static String example(String system, String until) {
        Matcher matcher = Pattern.compile("(?s)like this:\n(.*?)\n" + Pattern.quote(until)).matcher(system);
        assertThat(matcher.find()).as(system).isTrue();
        return matcher.group(1);
    }

    @Test
    void allLocalToolsNeedNoServerAndTheJsonExampleCallsTheFirstTool() throws Exception {
        ToolRegistry registry = new ToolRegistry().register(SchemaTool.of("read", "Reads lines.", SCHEMA));
        String system = prompts(ActionFormat.JSON, registry).systemMessage().content();

        JsonNode call = Jackson.JSON.readTree(example(system, "\"arguments\""));
        assertThat(call.get("tool_name").asString()).isEqualTo("read");
        assertThat(call.get("arguments").get("lines").asInt()).isEqualTo(1);
        assertThat(system).startsWith("Be useful.\n\nDo the user's task in a loop.")
                .contains("# action\nthe tool calls", "\"server_name\" defaults to \"local\".",
                        "\n\nserver_name \"local\":\nread: Reads lines.\n" + Jackson.JSON.readTree(SCHEMA));
    }

    @Test
    void withSignaturesAllLocalToolsNeedNoServer() {
        ToolRegistry registry = new ToolRegistry().register(SchemaTool.of("read", "Reads lines.", SCHEMA));
        MarkdownFormat text = new MarkdownFormat();
        text.registerSection(new TextSection(ReActPrompts.THOUGHT, "your reasoning"));
        text.registerSection(new TextSection(ReActPrompts.ACTION, "the tool calls"));
        text.registerSection(new TextSection(ReActPrompts.ANSWER, "the answer"));
        String system = new ReActPrompts("", text, ActionFormat.JSON, registry, ToolCatalogStyle.SIGNATURES)
                .systemMessage().content();

        assertThat(system).contains("\n\nTools:\n// Reads lines.\nread(path: string, lines: integer)")
                .doesNotContain("server_name");
    }

    @Test
    void aToolOfAnotherServerIsCalledWithItsServerInYaml() throws Exception {
        ToolRegistry registry = new ToolRegistry().register("files", SchemaTool.of("read", "Reads lines.", SCHEMA));
        ReActPrompts prompts = prompts(ActionFormat.YAML, registry);
        Message system = prompts.systemMessage();

        JsonNode call = Jackson.YAML.readTree(example(system.content(), "arguments: a mapping"));
        assertThat(call.get("server_name").asString()).isEqualTo("files");
        assertThat(call.get("tool_name").asString()).isEqualTo("read");
        assertThat(call.get("arguments").get("path").asString()).isEqualTo("…");
        assertThat(system.content()).contains("server_name defaults to local.",
                "\n\nserver_name \"files\":\nread: Reads lines.\n{\"type\":\"object\"");
        assertThat(prompts.systemMessage()).isSameAs(system);   // the registry did not change: not rendered again
    }
}
