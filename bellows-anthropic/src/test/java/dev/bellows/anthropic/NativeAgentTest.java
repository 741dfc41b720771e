package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_START;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_STOP;
import static dev.bellows.anthropic.DocsStreams.blockStop;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An agent with native tool calling and extended thinking against the Messages API's
 * documented stream shapes: tool_use blocks with input_json_delta become the tool events, and
 * the turn's thinking block goes back on the next request complete, with its signature; in
 * the tag protocol too, where the calls are tags in the text.
 */
class NativeAgentTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    record CityArguments(String city) {
    }

    private final FakeAnthropic server = new FakeAnthropic();

    NativeAgentTest() throws Exception {
    }

    @AfterEach
    void close() {
        server.close();
    }

    static String event(String type, String data) {
        return "event: " + type + "\ndata: " + data + "\n\n";
    }

    static String thinkingThenToolUse() {
        return MESSAGE_START
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"I need the \"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"weather first.\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAh\"}}")
                + blockStop(0)
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"get_weather\",\"input\":{}}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Oslo\\\"}\"}}")
                + blockStop(1)
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
                        + "\"usage\":{\"output_tokens\":40}}")
                + MESSAGE_STOP;
    }

    static String completion() {
        return MESSAGE_START
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"task_completion\",\"input\":{}}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"result\\\": \\\"Sunny in Oslo\\\"}\"}}")
                + blockStop(0)
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
                        + "\"usage\":{\"output_tokens\":9}}")
                + MESSAGE_STOP;
    }

    static String textBlock(int index, String text) throws Exception {
        return event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
                        + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index
                        + ",\"delta\":{\"type\":\"text_delta\",\"text\":" + JSON.writeValueAsString(text) + "}}")
                + blockStop(index);
    }

    @Test
    void inTheTagProtocolSignedAndRedactedThinkingGoBackUnchangedBeforeTheText() throws Exception {
        String call = "<tool>{\"tool_name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool>";
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix\"}}")
                + blockStop(0)
                + event("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,"
                        + "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"I need the \"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"weather first.\"}}")
                + event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAh\"}}")
                + blockStop(1)
                + textBlock(2, call)
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                        + "\"usage\":{\"output_tokens\":40}}")
                + MESSAGE_STOP));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + textBlock(0, "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"Sunny\"}}</tool>")
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                        + "\"usage\":{\"output_tokens\":9}}")
                + MESSAGE_STOP));
        var weather = TypedTool.of("get_weather", "The weather in a city", CityArguments.class,
                (context, arguments) -> ToolResult.of("sunny in " + arguments.city()));
        try (AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl())
                .defaultMaxTokens(8192).thinking(2048).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("claude-sonnet-4-5")
                    .toolMode(ToolMode.TAGS).retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                    .toolRegistry(new ToolRegistry().register(weather)).build();
            assertThat(agent.run("Weather in Oslo?").await())
                    .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Sunny"));

            JsonNode messages = JSON.readTree(server.requests().get(1).body()).get("messages");
            assertThat(messages.get(1)).isEqualTo(JSON.readTree("""
                    {"role": "assistant", "content": [
                      {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                      {"type": "thinking", "thinking": "I need the weather first.", "signature": "EqQBCgIYAh"},
                      {"type": "text", "text": %s}]}""".formatted(JSON.writeValueAsString(call))));
            assertThat(messages.get(2).get("role").asString()).isEqualTo("user");
            assertThat(messages.get(2).get("content").asString()).contains("sunny in Oslo");
            assertThat(JSON.readTree(server.requests().get(0).body()).has("tools")).as("tags: no API tools").isFalse();
        }
    }

    record WriteArguments(String path, String content) {
    }

    static String inputJsonDelta(int index, String partialJson) throws Exception {
        return event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index
                + ",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + JSON.writeValueAsString(partialJson) + "}}");
    }

    static String toolUseStart(int index, String id, String name) {
        return event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
                + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"input\":{}}}");
    }

    /**
     * Each member of a tool_use block's input is reported from its input_json_delta pieces as
     * soon as its value is complete: the path of a write while its content still streams, before
     * the call's end; then the next block's.
     */
    @Test
    void eachInputMemberIsReportedInTheDeltaThatCompletesItBeforeTheCallEnds() throws Exception {
        String content = "abcd ".repeat(40);
        StringBuilder answer = new StringBuilder(MESSAGE_START).append(textBlock(0, "Saving it."))
                .append(toolUseStart(1, "toolu_w", "write_file"))
                .append(inputJsonDelta(1, "{\"path\": \"no"))
                .append(inputJsonDelta(1, "tes/today.md\", \"con"))
                .append(inputJsonDelta(1, "tent\": \""));
        for (int i = 0; i < content.length(); i += 20) {
            answer.append(inputJsonDelta(1, content.substring(i, i + 20)));
        }
        answer.append(inputJsonDelta(1, "\"}")).append(blockStop(1))
                .append(toolUseStart(2, "toolu_r", "get_weather"))
                .append(inputJsonDelta(2, "{\"city\":")).append(inputJsonDelta(2, " \"Oslo\"}")).append(blockStop(2))
                .append(event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
                        + "\"usage\":{\"output_tokens\":90}}"))
                .append(MESSAGE_STOP);
        server.then(FakeAnthropic.sse(answer.toString()));
        server.then(FakeAnthropic.sse(completion()));
        var write = TypedTool.of("write_file", "Writes a file", WriteArguments.class,
                (context, arguments) -> ToolResult.of("wrote " + arguments.content().length() + " characters"));
        var weather = TypedTool.of("get_weather", "The weather in a city", CityArguments.class,
                (context, arguments) -> ToolResult.of("sunny in " + arguments.city()));
        try (AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl())
                .defaultMaxTokens(8192).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("claude-sonnet-4-5")
                    .toolMode(ToolMode.NATIVE).retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                    .toolRegistry(new ToolRegistry().register(write).register(weather)).build();
            var run = agent.run("Save today's notes and look at the weather");
            List<AgentEvent> events = run.events().toList();
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Sunny in Oslo"));

            List<StreamEvent> first = events.stream().takeWhile(e -> !(e instanceof dev.bellows.event.LoopEvent.ToolResultEvent))
                    .filter(StreamEvent.class::isInstance).map(StreamEvent.class::cast)
                    .filter(e -> e instanceof StreamEvent.ToolCallStart || e instanceof StreamEvent.ToolCallName
                            || e instanceof StreamEvent.ToolCallArgument || e instanceof StreamEvent.ToolCallEnd)
                    .toList();
            var nodes = JSON.getNodeFactory();
            int start = ((StreamEvent.ToolCallStart) first.get(0)).chunk();
            // chunks from the write's start: its first delta, the path completes in the third piece
            // of input, the content in the last; then the second block's start and two pieces
            int pieces = content.length() / 20;
            assertThat(first).containsExactly(
                    new StreamEvent.ToolCallStart(start, "tool_call", java.util.Map.of("id", "toolu_w")),
                    new StreamEvent.ToolCallName(start, "write_file"),
                    new StreamEvent.ToolCallArgument(start + 2, "path", nodes.stringNode("notes/today.md")),
                    new StreamEvent.ToolCallArgument(start + 4 + pieces, "content", nodes.stringNode(content)),
                    ((StreamEvent.ToolCallEnd) first.get(4)),
                    new StreamEvent.ToolCallStart(start + 5 + pieces, "tool_call", java.util.Map.of("id", "toolu_r")),
                    new StreamEvent.ToolCallName(start + 5 + pieces, "get_weather"),
                    new StreamEvent.ToolCallArgument(start + 7 + pieces, "city", nodes.stringNode("Oslo")),
                    ((StreamEvent.ToolCallEnd) first.get(8)));
            assertThat(((StreamEvent.ToolCallEnd) first.get(4)).chunk()).isEqualTo(start + 5 + pieces);
            assertThat(events).filteredOn(dev.bellows.event.LoopEvent.ToolResultEvent.class::isInstance)
                    .extracting(e -> ((dev.bellows.event.LoopEvent.ToolResultEvent) e).result())
                    .startsWith("wrote 200 characters", "sunny in Oslo");
        }
    }

    @Test
    void toolUseIsReadAsItStreamsAndSignedThinkingGoesBackUnchanged() throws Exception {
        server.then(FakeAnthropic.sse(thinkingThenToolUse()));
        server.then(FakeAnthropic.sse(completion()));
        var weather = TypedTool.of("get_weather", "The weather in a city", CityArguments.class,
                (context, arguments) -> ToolResult.of("sunny in " + arguments.city()));
        try (AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl())
                .defaultMaxTokens(8192).thinking(2048).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("claude-sonnet-4-5")
                    .toolMode(ToolMode.NATIVE).retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                    .toolRegistry(new ToolRegistry().register(weather)).build();
            var run = agent.run("Weather in Oslo?");
            List<AgentEvent> events = run.events().toList();
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Sunny in Oslo"));
            assertThat(events).contains(new StreamEvent.ThinkingEnd(3, "I need the weather first."),
                    new StreamEvent.ToolCallName(3, "get_weather"));     // chunk 2 was the signature

            JsonNode second = JSON.readTree(server.requests().get(1).body());
            JsonNode messages = second.get("messages");
            assertThat(messages.get(1)).isEqualTo(JSON.readTree("""
                    {"role": "assistant", "content": [
                      {"type": "thinking", "thinking": "I need the weather first.", "signature": "EqQBCgIYAh"},
                      {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Oslo"}}]}"""));
            assertThat(messages.get(2)).isEqualTo(JSON.readTree("""
                    {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny in Oslo"}]}"""));
            assertThat(second.get("tools")).hasSize(5);
        }
    }
}
