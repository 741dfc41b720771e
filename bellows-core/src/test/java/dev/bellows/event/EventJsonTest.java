package dev.bellows.event;

import tools.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventJsonTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private static String wire(StreamEvent event) throws Exception {
        return MAPPER.writeValueAsString(EventJson.toJson(event));
    }

    private static ObjectNode arguments(String json) throws Exception {
        return (ObjectNode) MAPPER.readTree(json);
    }

    private static Map<String, String> ordered(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @Test
    void thinkingStartKeepsTheAttributesInTheOrderWritten() throws Exception {
        var event = new StreamEvent.ThinkingStart(0, "Think", ordered("z", "1", "a", "", "m", "x y"));
        assertThat(wire(event)).isEqualTo(
                "{\"type\":\"thinking_start\",\"chunk\":0,\"name\":\"Think\",\"attributes\":{\"z\":\"1\",\"a\":\"\",\"m\":\"x y\"}}");
    }

    @Test
    void thinkingStartWithoutAttributesHasAnEmptyObject() throws Exception {
        assertThat(wire(new StreamEvent.ThinkingStart(2, "thinking", Map.of())))
                .isEqualTo("{\"type\":\"thinking_start\",\"chunk\":2,\"name\":\"thinking\",\"attributes\":{}}");
    }

    @Test
    void thinkingContentAndEnd() throws Exception {
        assertThat(wire(new StreamEvent.ThinkingContent(1, "step \"one\"\n")))
                .isEqualTo("{\"type\":\"thinking_content\",\"chunk\":1,\"content\":\"step \\\"one\\\"\\n\"}");
        assertThat(wire(new StreamEvent.ThinkingEnd(3, "step")))
                .isEqualTo("{\"type\":\"thinking_end\",\"chunk\":3,\"content\":\"step\"}");
    }

    @Test
    void messageEvents() throws Exception {
        assertThat(wire(new StreamEvent.MessageStart(4))).isEqualTo("{\"type\":\"message_start\",\"chunk\":4}");
        assertThat(wire(new StreamEvent.MessageContent(4, "a < b")))
                .isEqualTo("{\"type\":\"message_content\",\"chunk\":4,\"content\":\"a < b\"}");
        assertThat(wire(new StreamEvent.MessageEnd(5, "a < b é")))
                .isEqualTo("{\"type\":\"message_end\",\"chunk\":5,\"content\":\"a < b é\"}");
    }

    @Test
    void toolCallStartNameAndContent() throws Exception {
        assertThat(wire(new StreamEvent.ToolCallStart(0, "TOOL", ordered("id", "7"))))
                .isEqualTo("{\"type\":\"tool_call_start\",\"chunk\":0,\"name\":\"TOOL\",\"attributes\":{\"id\":\"7\"}}");
        assertThat(wire(new StreamEvent.ToolCallName(1, "read_file")))
                .isEqualTo("{\"type\":\"tool_call_name\",\"chunk\":1,\"tool_name\":\"read_file\"}");
        assertThat(wire(new StreamEvent.ToolCallContent(1, "{\"name\":")))
                .isEqualTo("{\"type\":\"tool_call_content\",\"chunk\":1,\"content\":\"{\\\"name\\\":\"}");
    }

    @Test
    void toolCallEndWithACall() throws Exception {
        String content = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\", \"n\": [1, 2]}}";
        var call = new ToolCall("local", "read_file", arguments("{\"path\": \"a.txt\", \"n\": [1, 2]}"));
        assertThat(wire(new StreamEvent.ToolCallEnd(2, content, call))).isEqualTo(
                "{\"type\":\"tool_call_end\",\"chunk\":2,\"content\":" + MAPPER.writeValueAsString(content)
                        + ",\"server_name\":\"local\",\"tool_name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\",\"n\":[1,2]}}");
    }

    @Test
    void toolCallEndWithAnError() throws Exception {
        var error = new ToolCallError("{oops", "the tool call is not valid JSON");
        assertThat(wire(new StreamEvent.ToolCallEnd(2, "{oops", error))).isEqualTo(
                "{\"type\":\"tool_call_end\",\"chunk\":2,\"content\":\"{oops\",\"error\":\"the tool call is not valid JSON\"}");
    }

    @Test
    void completeAggregatesThinkingAndBothKindsOfToolCall() throws Exception {
        List<DecodedToolCall> calls = List.of(
                new ToolCall("fs", "write", arguments("{\"path\":\"b\"}")),
                new ToolCallError("<tool_name></tool_name>", "tool_name is empty"));
        var complete = new StreamEvent.Complete(6, "Hello world",
                List.of(new ThinkingBlock("think", "plan", ordered("mode", "deep")),
                        new ThinkingBlock("thinking", "", Map.of())),
                calls);
        assertThat(wire(complete)).isEqualTo("{\"type\":\"complete\",\"chunk\":6,\"message\":\"Hello world\","
                + "\"thinking\":[{\"name\":\"think\",\"content\":\"plan\",\"attributes\":{\"mode\":\"deep\"}},"
                + "{\"name\":\"thinking\",\"content\":\"\",\"attributes\":{}}],"
                + "\"tool_calls\":[{\"server_name\":\"fs\",\"tool_name\":\"write\",\"arguments\":{\"path\":\"b\"}},"
                + "{\"content\":\"<tool_name></tool_name>\",\"error\":\"tool_name is empty\"}]}");
    }

    @Test
    void completeOfAnEmptyStream() throws Exception {
        assertThat(wire(new StreamEvent.Complete(0, "", List.of(), List.of())))
                .isEqualTo("{\"type\":\"complete\",\"chunk\":0,\"message\":\"\",\"thinking\":[],\"tool_calls\":[]}");
    }

    @Test
    void chunkCanBeLeftOut() throws Exception {
        assertThat(MAPPER.writeValueAsString(EventJson.toJson(new StreamEvent.MessageStart(3), false)))
                .isEqualTo("{\"type\":\"message_start\"}");
        assertThat(MAPPER.writeValueAsString(EventJson.toJson(new StreamEvent.ToolCallName(3, "x"), false)))
                .isEqualTo("{\"type\":\"tool_call_name\",\"tool_name\":\"x\"}");
    }

    @Test
    void theResultCannotChangeTheEventItsArgumentsAreTheEventsFrozenOnes() throws Exception {
        ObjectNode args = arguments("{\"path\":\"a\"}");
        var event = new StreamEvent.ToolCallEnd(0, "c", new ToolCall("local", "t", args));
        JsonNode json = EventJson.toJson(event);
        assertThatThrownBy(() -> ((ObjectNode) json.get("arguments")).put("path", "changed"))
                .isInstanceOf(UnsupportedOperationException.class);
        ((ObjectNode) json.get("arguments").deepCopy()).put("path", "changed");
        assertThat(((ToolCall) event.call()).arguments().get("path").asString()).isEqualTo("a");
        assertThat(args.get("path").asString()).isEqualTo("a");
    }
}
