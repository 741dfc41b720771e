package dev.bellows.prompt;

import static org.assertj.core.api.Assertions.assertThat;

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
        ToolRegistry registry = new ToolRegistry().register(SchemaTool.of("add", "Adds two integers", """
                {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                 "required": ["a", "b"]}"""));
        BuiltinTools.all().forEach(registry::register);

        assertSnapshot("system_builtins_json.txt", PromptBuilder.builder().toolRegistry(registry).build()
                .systemMessage().content());
        assertSnapshot("system_builtins_xml.txt", PromptBuilder.builder().toolRegistry(registry)
                .toolCallFormat(ToolCallFormat.XML).build().systemMessage().content());
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
