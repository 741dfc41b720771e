package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_START;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_STOP;
import static dev.bellows.anthropic.DocsStreams.blockStop;
import static dev.bellows.anthropic.NativeAgentTest.event;
import static dev.bellows.anthropic.NativeAgentTest.textBlock;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tool.Media;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The media a tool returns reach the model as the Messages API's own blocks, as the fake of
 * the endpoint received them: images as {@code image} blocks and PDFs as {@code document}
 * blocks with a base64 source, after the observation's text in the tag protocol's user
 * message, and inside the {@code tool_result} in native mode. A medium of another type is
 * named in the text, with the reason.
 */
class ToolMediaTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    private static final byte[] PDF = {'%', 'P', 'D', 'F', '-', '1', '.', '7'};

    record Page(String url) {
    }

    private static final TypedTool<Page, String> CAPTURE = TypedTool.of("capture", "Captures a page", Page.class,
            (context, page) -> new ToolResult<>("captured " + page.url(), List.of(Media.image(PNG, "image/png"),
                    new Media("application/pdf", PDF), new Media("audio/wav", new byte[] {'R', 'I', 'F', 'F'}))));

    private final FakeAnthropic server = new FakeAnthropic();

    ToolMediaTest() throws Exception {
    }

    @AfterEach
    void close() {
        server.close();
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static final String NOTE = "\n(not shown to you: audio/wav, 4 bytes; only JPEG, PNG, GIF and WebP images and"
            + " PDF documents can be sent to you)";

    private JsonNode blocks() throws Exception {
        return JSON.readTree("""
                [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%s"}},
                 {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "%s"}}]"""
                .formatted(base64(PNG), base64(PDF)));
    }

    private DefaultAgent agent(ToolMode mode) {
        AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl()).build();
        return DefaultAgent.builder().provider(provider).model("claude-sonnet-4-5").toolMode(mode)
                .retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                .toolRegistry(new ToolRegistry().register(CAPTURE)).build();
    }

    @Test
    void inTheTagProtocolTheBlocksFollowTheObservationsText() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START
                + textBlock(0, "<tool>{\"tool_name\": \"capture\", \"arguments\": {\"url\": \"home\"}}</tool>")
                + MESSAGE_STOP));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + textBlock(0, "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"seen\"}}</tool>")
                + MESSAGE_STOP));
        assertThat(agent(ToolMode.TAGS).run("Capture home").await())
                .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "seen"));

        JsonNode messages = JSON.readTree(server.requests().get(1).body()).get("messages");
        JsonNode observation = messages.get(messages.size() - 1);
        assertThat(observation.get("role").asString()).isEqualTo("user");
        JsonNode content = observation.get("content");
        assertThat(content).hasSize(3);
        assertThat(content.get(0).get("type").asString()).isEqualTo("text");
        assertThat(content.get(0).get("text").asString()).contains("captured home").endsWith(NOTE);
        assertThat(List.of(content.get(1), content.get(2))).containsExactlyElementsOf(blocks());
    }

    @Test
    void inNativeModeTheBlocksAreInsideTheToolResult() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"capture\",\"input\":{}}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"url\\\": \\\"home\\\"}\"}}")
                + blockStop(0) + MESSAGE_STOP));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"task_completion\",\"input\":{}}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"result\\\": \\\"seen\\\"}\"}}")
                + blockStop(0) + MESSAGE_STOP));
        assertThat(agent(ToolMode.NATIVE).run("Capture home").await())
                .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "seen"));

        JsonNode messages = JSON.readTree(server.requests().get(1).body()).get("messages");
        JsonNode results = messages.get(messages.size() - 1);
        assertThat(results.get("role").asString()).isEqualTo("user");
        JsonNode toolResult = results.get("content").get(0);
        assertThat(toolResult.get("type").asString()).isEqualTo("tool_result");
        assertThat(toolResult.get("tool_use_id").asString()).isEqualTo("toolu_01");
        JsonNode content = toolResult.get("content");
        assertThat(content).hasSize(3);
        assertThat(content.get(0).get("text").asString()).startsWith("captured home").endsWith(NOTE);
        assertThat(List.of(content.get(1), content.get(2))).containsExactlyElementsOf(blocks());
    }
}
