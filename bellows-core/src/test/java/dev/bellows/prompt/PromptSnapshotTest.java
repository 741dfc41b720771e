package dev.bellows.prompt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.format.ActionFormat;
import dev.bellows.format.MarkdownFormat;
import dev.bellows.format.TextSection;
import dev.bellows.prompt.internal.PromptBuilder;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The exact system message, compared with the files in {@code src/test/resources/dev/bellows/prompt/snapshots}.
 * A change to a prompt text shows up here as a diff to review. To accept a change on purpose, run
 * the tests with {@code -Dbellows.updateSnapshots=true} and read the diff of the snapshot files.
 */
class PromptSnapshotTest {

    private static final String INSTRUCTIONS = "You are a helpful assistant for the Bellows team.";

    /** Two tools on two servers: what the catalog looks like. */
    static ToolRegistry twoTools() {
        return new ToolRegistry()
                .register(SchemaTool.of("get_weather", "Current weather for a city.",
                        """
                        {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                         "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}
                        """))
                .register("files", SchemaTool.of("read_file", "Reads a text file.\nFails for binary files.",
                        """
                        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                         "additionalProperties": false}
                        """));
    }

    /** The default catalog: every tool under its server's heading, with its description and whole JSON Schema. */
    @Test
    void jsonFormatWithTwoTools() {
        Message system = PromptBuilder.builder().instructions(INSTRUCTIONS).toolRegistry(twoTools()).build()
                .systemMessage();

        assertThat(system.role()).isEqualTo(Role.SYSTEM);
        assertSnapshot("system_json.txt", system.content());
    }

    @Test
    void xmlFormatWithTwoTools() {
        Message system = PromptBuilder.builder().instructions(INSTRUCTIONS).toolRegistry(twoTools())
                .toolCallFormat(ToolCallFormat.XML).build().systemMessage();

        assertSnapshot("system_xml.txt", system.content());
    }

    /** What an agent with one tool of its own sends: the catalog holds the built-ins too, all on server local. */
    @Test
    void jsonFormatWithTheBuiltInsAndOneTool() {
        assertSnapshot("system_builtins_json.txt", PromptBuilder.builder().toolRegistry(builtinsAndAdd()).build()
                .systemMessage().content());
        assertSnapshot("system_builtins_xml.txt", PromptBuilder.builder().toolRegistry(builtinsAndAdd())
                .toolCallFormat(ToolCallFormat.XML).build().systemMessage().content());
    }

    /** The opt-in catalog of signatures, for the same registries. */
    @Test
    void signatureCatalogInBothFormats() {
        for (ToolCallFormat format : ToolCallFormat.values()) {
            String suffix = format.name().toLowerCase(java.util.Locale.ROOT) + "_signatures.txt";
            assertSnapshot("system_" + suffix, PromptBuilder.builder().instructions(INSTRUCTIONS).toolRegistry(twoTools())
                    .toolCallFormat(format).toolCatalog(ToolCatalogStyle.SIGNATURES).build().systemMessage().content());
            assertSnapshot("system_builtins_" + suffix, PromptBuilder.builder().toolRegistry(builtinsAndAdd())
                    .toolCallFormat(format).toolCatalog(ToolCatalogStyle.SIGNATURES).build().systemMessage().content());
        }
    }

    /** The ReAct loop's system message, in both catalog styles. */
    @Test
    void reactSystemMessageInBothStyles() {
        for (ToolCatalogStyle style : ToolCatalogStyle.values()) {
            MarkdownFormat text = new MarkdownFormat();
            text.registerSection(new TextSection(ReActPrompts.THOUGHT, "your reasoning"));
            text.registerSection(new TextSection(ReActPrompts.ACTION, "the tool calls"));
            text.registerSection(new TextSection(ReActPrompts.ANSWER, "the answer"));
            String name = style == ToolCatalogStyle.JSON_SCHEMA ? "react_json.txt" : "react_json_signatures.txt";
            assertSnapshot(name, new ReActPrompts(INSTRUCTIONS, text, ActionFormat.JSON, twoTools(), style)
                    .systemMessage().content());
        }
    }

    private static ToolRegistry builtinsAndAdd() {
        ToolRegistry registry = new ToolRegistry().register(SchemaTool.of("add", "Adds two integers", """
                {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                 "required": ["a", "b"]}"""));
        BuiltinTools.all().forEach(registry::register);
        return registry;
    }

    @Test
    void plainChatWithoutRegistry() {
        Message system = PromptBuilder.builder().instructions(INSTRUCTIONS).build().systemMessage();

        assertSnapshot("system_chat.txt", system.content());
    }

    @Test
    void reminderInBothFormats() {
        assertSnapshot("reminder_json.txt", PromptBuilder.builder().toolRegistry(twoTools()).build().noToolCallReminder());
        assertSnapshot("reminder_xml.txt", PromptBuilder.builder().toolRegistry(twoTools())
                .toolCallFormat(ToolCallFormat.XML).build().noToolCallReminder());
    }

    static void assertSnapshot(String name, String actual) {
        String resource = "snapshots/" + name;
        if (Boolean.getBoolean("bellows.updateSnapshots")) {
            try {
                Path file = Path.of("src/test/resources/dev/bellows/prompt", resource);
                Files.createDirectories(file.getParent());
                Files.writeString(file, actual + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        try (InputStream in = PromptSnapshotTest.class.getResourceAsStream(resource)) {
            assertThat(in).as("snapshot " + resource + " (run with -Dbellows.updateSnapshots=true to write it)")
                    .isNotNull();
            String expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(actual + "\n").as("snapshot " + resource).isEqualTo(expected);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
