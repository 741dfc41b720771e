package dev.bellows.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.json.internal.Jackson;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** {@link EventJson#write} writes, byte for byte, what {@link EventJson#toJson}'s tree is written as. */
class EventJsonWriteTest {

    private static JsonNode json(String text) {
        return Jackson.JSON.readTree(text);
    }

    private static Map<String, String> ordered(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** At least one event of every type, with the optional fields set and left out, odd text and nulls. */
    private static List<AgentEvent> everyType() {
        JsonNode args = json("{\"path\":\"a \\\"b\\\"\\n\",\"n\":[1,2.5,-3e10,true,null],\"o\":{\"é\":\"\\u2028\"}}");
        List<DecodedToolCall> calls = List.of(new ToolCall("fs", "write", args),
                new ToolCallError("<tool_name></tool_name>", "tool_name is empty"));
        List<AgentEvent> events = List.of(
                new StreamEvent.ThinkingStart(0, "Think", ordered("z", "1", "a", "", "m", "x \"y\"")),
                new StreamEvent.ThinkingStart(1, "t", Map.of()),
                new StreamEvent.ThinkingContent(2, "plan\tüñ 😀"),
                new StreamEvent.ThinkingEnd(3, "plan"),
                new StreamEvent.MessageStart(4),
                new StreamEvent.MessageContent(5, "</script>\u0000"),
                new StreamEvent.MessageEnd(6, ""),
                new StreamEvent.ToolCallStart(7, "tool", ordered("id", "7")),
                new StreamEvent.ToolCallName(8, "read_file"),
                new StreamEvent.ToolCallArgument(9, "path", json("\"a.txt\"")),
                new StreamEvent.ToolCallArgument(9, "deep", args),
                new StreamEvent.ToolCallContent(10, "{\"name\""),
                new StreamEvent.ToolCallEnd(11, "{...}", calls.get(0), "call_1"),
                new StreamEvent.ToolCallEnd(11, "{oops", calls.get(1)),
                new StreamEvent.Section(12, "plan", "- a"),
                new StreamEvent.Complete(13, "Hello", List.of(new ThinkingBlock("think", "p", ordered("mode", "deep")),
                        new ThinkingBlock("thinking", "", Map.of())), calls),
                new StreamEvent.Complete(14, "", List.of(), List.of()),
                new LoopEvent.LoopStart("add 2 and 3"),
                new LoopEvent.IterationStart(1),
                new LoopEvent.ToolResultEvent("local", "add", args, "sum=5", "call_2"),
                new LoopEvent.ToolResultEvent("local", "add", json("{}"), "sum=5"),
                new LoopEvent.ToolResultError("local", "nope", "no such tool", "call_3"),
                new LoopEvent.ToolResultError(null, null, "not JSON"),
                new LoopEvent.NoToolCall(2),
                new LoopEvent.PlanUpdate(List.of(new PlanStep("read", PlanStatus.COMPLETED),
                        new PlanStep("write", PlanStatus.IN_PROGRESS))),
                new LoopEvent.PlanUpdate(List.of()),
                new LoopEvent.Retry(2, "HTTP 503: busy", 5_000_000_000L),
                new LoopEvent.ApprovalRequired("call_3_1", "files", "write_file", args),
                new LoopEvent.Approval("call_3_1", false, "use the staging folder"),
                new LoopEvent.Approval("call_3_2", true, ""),
                new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "The sum is 5."),
                new LoopEvent.LoopEnd(LoopEndReason.MAX_ITERATIONS, ""),
                new LoopEvent.Handoff("triage", "billing"),
                new LoopEvent.SubAgentEvent("helper", "call_9", new StreamEvent.MessageContent(3, "hi")),
                new LoopEvent.SubAgentEvent("outer", "call_1",
                        new LoopEvent.SubAgentEvent("inner", "call_2", new LoopEvent.ToolResultEvent("l", "t", args, "r"))));
        return events;
    }

    @Test
    void theEventsCoverEveryType() {
        Set<Class<?>> types = everyType().stream().map(Object::getClass).collect(Collectors.toSet());
        for (Class<?> family : List.of(StreamEvent.class, LoopEvent.class)) {
            assertThat(types).containsAll(Arrays.asList(family.getPermittedSubclasses()));
        }
    }

    @Test
    void everyEventIsWrittenAsItsTreeWithAndWithoutChunk() {
        for (boolean chunk : new boolean[] {true, false}) {
            for (AgentEvent event : everyType()) {
                StringWriter out = new StringWriter();
                try (JsonGenerator generator = Jackson.JSON.createGenerator(out)) {
                    EventJson.write(event, chunk, generator);
                }
                assertThat(out.toString()).as("%s, chunk %s", event, chunk)
                        .isEqualTo(Jackson.JSON.writeValueAsString(EventJson.toJson(event, chunk)));
            }
        }
    }

    /** What {@link EventJson#write} gives a compact generator of the shared mapper. */
    private static String generated(AgentEvent event, boolean chunk) {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = Jackson.JSON.createGenerator(out)) {
            EventJson.write(event, chunk, generator);
        }
        return out.toString();
    }

    @Test
    void everyEventIsAppendedAsTheGeneratorWritesIt() {
        for (boolean chunk : new boolean[] {true, false}) {
            StringBuilder lines = new StringBuilder("kept ");
            StringBuilder expected = new StringBuilder("kept ");
            for (AgentEvent event : everyType()) {
                assertThat(EventJson.append(event, chunk, new StringBuilder()).toString()).as("%s, chunk %s", event, chunk)
                        .isEqualTo(generated(event, chunk));
                EventJson.append(event, chunk, lines).append('\n');
                expected.append(generated(event, chunk)).append('\n');
            }
            assertThat(lines.toString()).isEqualTo(expected.toString());
        }
    }

    @Test
    void everyCharacterAndEveryKindOfTreeIsAppendedAsTheGeneratorWritesIt() {
        StringBuilder every = new StringBuilder();
        for (int c = 0; c <= 0xFFFF; c++) {
            every.append((char) c);     // lone surrogates too
        }
        every.append("\uD83D\uDE00");
        List<AgentEvent> events = List.of(new StreamEvent.MessageContent(0, every.toString()),
                // an attribute's name is the model's text: escaped as any string (the wire form's own names are not)
                new StreamEvent.ToolCallStart(1, "tool", Map.of(every.toString(), every.toString())),
                new StreamEvent.ToolCallArgument(2, every.toString(), json("{\"" + "k\\u0001\\\"" + "\":[1.5,-0.0,1e300,"
                        + "123456789012345678901234567890,9223372036854775807,-2147483649,\"\\u2028\",{},[],[{}],false,null]}")),
                new StreamEvent.ToolCallArgument(3, "big", Jackson.JSON.getNodeFactory().numberNode(new java.math.BigDecimal("1.50"))),
                new StreamEvent.ToolCallArgument(4, "float", Jackson.JSON.getNodeFactory().numberNode(0.1f)),
                new StreamEvent.ToolCallArgument(5, "short", Jackson.JSON.getNodeFactory().numberNode((short) 7)),
                new StreamEvent.ToolCallArgument(6, "binary", Jackson.JSON.getNodeFactory().binaryNode(new byte[] {1, 2, 3})));
        for (AgentEvent event : events) {
            assertThat(EventJson.append(event, true, new StringBuilder()).toString()).as("%s", event.type())
                    .isEqualTo(generated(event, true));
        }
    }

    @Test
    void oneGeneratorWritesManyEventsAsLines() {
        StringWriter out = new StringWriter();
        StringBuilder expected = new StringBuilder();
        try (JsonGenerator generator = Jackson.JSON.writer().withRootValueSeparator("\n").createGenerator(out)) {
            for (AgentEvent event : everyType()) {
                EventJson.write(event, false, generator);
                expected.append(expected.isEmpty() ? "" : "\n").append(Jackson.JSON.writeValueAsString(EventJson.toJson(event, false)));
            }
        }
        assertThat(out.toString()).isEqualTo(expected.toString()).contains("\n{\"type\":\"loop_end\"");
    }
}
