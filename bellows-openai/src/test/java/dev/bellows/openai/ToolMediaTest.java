package dev.bellows.openai;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.Media;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The images a tool returns reach the model in the OpenAI-compatible API's own form, as the
 * mock server recorded the requests: {@code image_url} parts with {@code data:} URLs after the
 * observation's text in the tag protocol; in native mode, since a tool message can only hold
 * text, in a user message right after the turn's tool messages, each call's images named. A
 * medium that is not sent is named in the text with the reason.
 */
class ToolMediaTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13};
    private static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0};
    private static final String PNG_URL = "data:image/png;base64," + Base64.getEncoder().encodeToString(PNG);
    private static final String JPEG_URL = "data:image/jpeg;base64," + Base64.getEncoder().encodeToString(JPEG);

    record Page(String url) {
    }

    /** A screenshot tool: a PNG, and for a page named "two" also a JPEG and a file no API takes. */
    private static final TypedTool<Page, String> SCREENSHOT = TypedTool.of("screenshot", "Screenshots a page", Page.class,
            (context, page) -> page.url().equals("two")
                    ? new ToolResult<>("two pictures", List.of(Media.image(PNG, "image/png"), Media.image(JPEG, "image/jpeg"),
                            new Media("application/zip", new byte[] {'P', 'K', 3, 4})))
                    : ToolResult.of("one picture", Media.image(PNG, "image/png")));

    private static DefaultAgent agent(OpenAiProvider provider, ToolMode mode) {
        return DefaultAgent.builder().provider(provider).model("gpt-test").toolMode(mode)
                .retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                .toolRegistry(new ToolRegistry().register(SCREENSHOT)).build();
    }

    @Test
    void inTheTagProtocolTheImagesFollowTheObservationsTextInItsUserMessage(@TempDir Path dir) throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"content": "<tool>{\\"tool_name\\": \\"screenshot\\", \\"arguments\\": {\\"url\\": \\"two\\"}}</tool>"},
                  {"content": "<tool>{\\"tool_name\\": \\"task_completion\\", \\"arguments\\": {\\"result\\": \\"seen\\"}}</tool>"}
                ]}""");
        Path record = dir.resolve("requests.jsonl");
        try (MockLlmServer server = MockLlmServer.builder(script).recordTo(record).start();
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).build()) {
            assertThat(agent(provider, ToolMode.TAGS).run("Look at page two").await())
                    .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "seen"));

            JsonNode messages = server.requests().get(1).body().path("messages");
            JsonNode observation = messages.get(messages.size() - 1);
            assertThat(observation.path("role").asString()).isEqualTo("user");
            JsonNode parts = observation.path("content");
            assertThat(parts).hasSize(3);
            assertThat(parts.get(0).path("type").asString()).isEqualTo("text");
            assertThat(parts.get(0).path("text").asString()).contains("two pictures")
                    .contains("(3 files attached: image/png, 12 bytes; image/jpeg, 4 bytes; application/zip, 4 bytes)")
                    .endsWith("(not shown to you: application/zip, 4 bytes; only PNG, JPEG, GIF and WebP images can"
                            + " be sent to you)");
            assertThat(parts.get(1)).isEqualTo(JSON.readTree("{\"type\":\"image_url\",\"image_url\":{\"url\":\""
                    + PNG_URL + "\"}}"));
            assertThat(parts.get(2)).isEqualTo(JSON.readTree("{\"type\":\"image_url\",\"image_url\":{\"url\":\""
                    + JPEG_URL + "\"}}"));
        }
        // --record keeps the same request, image and all
        List<String> lines = Files.readAllLines(record);
        assertThat(lines).hasSize(2);
        assertThat(JSON.readTree(lines.get(1)).path("body").path("messages").toString()).contains(PNG_URL, JPEG_URL);
    }

    @Test
    void inNativeModeTheImagesFollowTheTurnsToolMessagesInAUserMessage() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "call_a", "name": "screenshot", "arguments": {"url": "one"}},
                    {"id": "call_b", "name": "screenshot", "arguments": {"url": "two"}}]},
                  {"tool_calls": [{"name": "task_completion", "arguments": {"result": "seen"}}]}
                ]}""");
        try (MockLlmServer server = MockLlmServer.start(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).build()) {
            assertThat(agent(provider, ToolMode.NATIVE).run("Look at both pages").await())
                    .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "seen"));

            JsonNode messages = server.requests().get(1).body().path("messages");
            JsonNode toolA = messages.get(messages.size() - 3);
            JsonNode toolB = messages.get(messages.size() - 2);
            JsonNode images = messages.get(messages.size() - 1);
            assertThat(toolA.path("role").asString()).isEqualTo("tool");
            assertThat(toolA.path("tool_call_id").asString()).isEqualTo("call_a");
            assertThat(toolA.path("content").asString()).isEqualTo("one picture\n(1 image attached: image/png, 12 bytes)");
            assertThat(toolB.path("content").asString()).contains("two pictures")
                    .endsWith("(not shown to you: application/zip, 4 bytes; only PNG, JPEG, GIF and WebP images can"
                            + " be sent to you)");
            assertThat(images).isEqualTo(JSON.readTree("""
                    {"role": "user", "content": [
                      {"type": "text", "text": "The images returned for call call_a:"},
                      {"type": "image_url", "image_url": {"url": "%s"}},
                      {"type": "text", "text": "The images returned for call call_b:"},
                      {"type": "image_url", "image_url": {"url": "%s"}},
                      {"type": "image_url", "image_url": {"url": "%s"}}]}""".formatted(PNG_URL, PNG_URL, JPEG_URL)));
        }
    }

    @Test
    void withImageInputOffTheModelIsToldWhatItWasNotShown() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"tool_calls": [{"id": "call_a", "name": "screenshot", "arguments": {"url": "one"}}]},
                  {"tool_calls": [{"name": "task_completion", "arguments": {"result": "blind"}}]}
                ]}""");
        try (MockLlmServer server = MockLlmServer.start(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).imageInput(false).build()) {
            assertThat(agent(provider, ToolMode.NATIVE).run("Look").await().result()).isEqualTo("blind");

            JsonNode messages = server.requests().get(1).body().path("messages");
            JsonNode last = messages.get(messages.size() - 1);
            assertThat(last.path("role").asString()).as("no user message of images").isEqualTo("tool");
            assertThat(last.path("content").asString()).isEqualTo("one picture\n(1 image attached: image/png, 12 bytes)\n"
                    + "(not shown to you: image/png, 12 bytes; images cannot be sent to this model)");
            assertThat(server.requests().get(1).body().toString()).doesNotContain("image_url");
        }
    }
}
