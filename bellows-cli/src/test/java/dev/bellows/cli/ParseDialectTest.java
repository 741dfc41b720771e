package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bellows parse --dialect}, {@code --model} and {@code --tools}, through the real stream processor. */
class ParseDialectTest {

    @TempDir
    Path dir;

    private static JsonNode complete(Cli.Run run) {
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        List<JsonNode> events = run.outJson();
        return events.getLast();
    }

    private static String chunk(String content) {
        return "{\"content\": \"" + content.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"}\n";
    }

    @Test
    void aDialectByName() {
        Cli.Run run = Cli.run(chunk("Checking. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0")
                        + chunk("<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>"),
                "parse", "--dialect", "kimi_k2");
        JsonNode complete = complete(run);
        assertThat(complete.get("message").asString()).isEqualTo("Checking.");
        assertThat(complete.get("tool_calls")).isEqualTo(Cli.json(
                "[{\"server_name\":\"local\",\"tool_name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]"));
        // The early name comes with the first chunk, which completes it.
        assertThat(run.outJson()).anySatisfy(e -> {
            assertThat(e.get("type").asString()).isEqualTo("tool_call_name");
            assertThat(e.get("chunk").asInt()).isZero();
        });
    }

    @Test
    void autoPicksTheDialectAndOptionsFromTheModelName() {
        Cli.Run run = Cli.run(chunk("I need the list.\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>"),
                "parse", "--dialect", "auto", "--model", "Qwen/QwQ-32B");
        JsonNode complete = complete(run);
        assertThat(complete.get("thinking")).isEqualTo(Cli.json(
                "[{\"name\":\"think\",\"content\":\"I need the list.\",\"attributes\":{}}]"));
        assertThat(complete.get("tool_calls").get(0).get("tool_name").asString()).isEqualTo("ls");
    }

    @Test
    void toolsTypeXmlStyleParameters() throws IOException {
        Path tools = dir.resolve("tools.json");
        Files.writeString(tools, "[{\"type\": \"function\", \"function\": {\"name\": \"add\", \"parameters\": {\"type\":"
                + " \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}, \"b\": {\"type\": \"string\"}}}}}]");
        String text = "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</parameter>\n"
                + "</function>\n</tool_call>";
        assertThat(complete(Cli.run(chunk(text), "parse", "--dialect", "qwen3_coder", "--tools", tools.toString()))
                .get("tool_calls").get(0).get("arguments")).isEqualTo(Cli.json("{\"a\":1,\"b\":\"2\"}"));
        assertThat(complete(Cli.run(chunk(text), "parse", "--dialect", "qwen3_coder"))
                .get("tool_calls").get(0).get("arguments")).isEqualTo(Cli.json("{\"a\":\"1\",\"b\":\"2\"}"));
    }

    private static void assertUsageError(Cli.Run run, String message) {
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("bellows parse: " + message).doesNotContain("Exception").hasLineCount(1);
    }

    @Test
    void badDialectOptionsAreOneLineErrors() throws IOException {
        assertUsageError(Cli.run("", "parse", "--dialect", "qwen9"), "--dialect: unknown dialect 'qwen9': use one of bellows,");
        assertUsageError(Cli.run("", "parse", "--dialect", "auto"), "--dialect auto: give the model's name with --model");
        assertUsageError(Cli.run("", "parse", "--model", "x"), "--model is only used with --dialect auto");
        assertUsageError(Cli.run("", "parse", "--dialect", "hermes", "--tool-tags", "call"),
                "--tool-tags: tag names apply to --dialect bellows only");
        assertUsageError(Cli.run("", "parse", "--dialect", "glm45", "--tools", dir.resolve("none.json").toString()),
                "--tools: no such file");
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"name\": \"x\"}");
        assertUsageError(Cli.run("", "parse", "--dialect", "glm45", "--tools", bad.toString()),
                "--tools: the tools must be a JSON list");
    }
}
