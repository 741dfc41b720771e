package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import dev.bellows.tool.Media;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every kind of MCP content, as the model and the program receive it. */
class ResultMapperTest {

    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};
    private static final byte[] WAV = {'R', 'I', 'F', 'F'};

    private static McpSchema.CallToolResult result(List<McpSchema.Content> content, Boolean isError, Object structured) {
        return new McpSchema.CallToolResult(content, isError, structured, null);
    }

    @Test
    void text_image_audio_and_resources_become_text_and_media() throws ToolException {
        ToolResult<?> mapped = ResultMapper.map("s", "t", result(List.of(
                new McpSchema.TextContent("first"),
                new McpSchema.ImageContent(null, Base64.getEncoder().encodeToString(PNG), "image/png"),
                new McpSchema.AudioContent(null, Base64.getEncoder().encodeToString(WAV), "audio/wav"),
                new McpSchema.EmbeddedResource(null, new McpSchema.TextResourceContents("file:///a.txt", "text/plain", "inside")),
                new McpSchema.EmbeddedResource(null, new McpSchema.BlobResourceContents("file:///b.bin",
                        "application/octet-stream", Base64.getEncoder().encodeToString(new byte[] {1, 2})))),
                null, null));
        assertThat(mapped.output()).isEqualTo("first\nresource file:///a.txt (text/plain):\ninside\n"
                + "resource file:///b.bin (attached)");
        assertThat(mapped.media()).containsExactly(new Media("image/png", PNG), new Media("audio/wav", WAV),
                new Media("application/octet-stream", new byte[] {1, 2}));
    }

    @Test
    void structured_content_is_the_output_when_there_is_no_text_and_is_added_when_the_text_differs()
            throws ToolException {
        Map<String, Object> weather = Map.of("temperature", 22);
        ToolResult<?> only = ResultMapper.map("s", "t", result(List.of(), null, weather));
        assertThat(only.output()).isInstanceOf(JsonNode.class);
        assertThat(only.output().toString()).isEqualTo("{\"temperature\":22}");

        ToolResult<?> same = ResultMapper.map("s", "t", result(List.of(new McpSchema.TextContent("{\"temperature\": 22}")),
                null, weather));
        assertThat(same.output()).isEqualTo("{\"temperature\": 22}");

        ToolResult<?> different = ResultMapper.map("s", "t", result(List.of(new McpSchema.TextContent("It is warm.")),
                null, weather));
        assertThat(different.output()).isEqualTo("It is warm.\n{\"temperature\":22}");
    }

    @Test
    void is_error_is_a_tool_exception_with_the_servers_text() {
        assertThatThrownBy(() -> ResultMapper.map("fs", "read", result(
                List.of(new McpSchema.TextContent("Access denied - path outside allowed directories")), true, null)))
                .isInstanceOf(ToolException.class)
                .hasMessage("Access denied - path outside allowed directories");
        assertThatThrownBy(() -> ResultMapper.map("fs", "read", result(List.of(), true, null)))
                .hasMessage("tool \"read\" of MCP server \"fs\" reported an error without a message");
    }

    @Test
    void resource_links_are_named_and_broken_base64_is_left_out_saying_so() throws ToolException {
        ToolResult<?> mapped = ResultMapper.map("s", "t", result(List.of(
                new McpSchema.ResourceLink("notes", null, "file:///notes.md", "My notes", "text/markdown", null, null, null),
                new McpSchema.ImageContent(null, "%%% not base64 %%%", "image/png")), null, null));
        assertThat((String) mapped.output()).contains("resource link: file:///notes.md (notes), text/markdown: My notes")
                .contains("(an image whose data is not valid base64 was left out)");
        assertThat(mapped.media()).isEmpty();
    }

    @Test
    void no_content_at_all_is_no_output() throws ToolException {
        assertThat(ResultMapper.map("s", "t", result(List.of(), false, null)).output()).isNull();
    }
}
