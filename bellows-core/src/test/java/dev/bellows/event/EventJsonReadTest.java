package dev.bellows.event;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every event read back from its wire form is the event written: the reader lives beside the writer. */
class EventJsonReadTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private static AgentEvent roundTrip(AgentEvent event, boolean chunk) throws Exception {
        String wire = MAPPER.writeValueAsString(EventJson.toJson(event, chunk));
        return EventJson.fromJson(MAPPER.readTree(wire)).orElseThrow();
    }

    @Test
    void everyEventButCompleteComesBackAsItWasWritten() throws Exception {
        ObjectNode arguments = (ObjectNode) MAPPER.readTree("{\"path\":\"a.txt\",\"lines\":[1,2]}");
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("b", "2");
        attributes.put("a", "1");
        List<AgentEvent> events = List.of(
                new StreamEvent.ThinkingStart(0, "think", attributes),
                new StreamEvent.ThinkingContent(0, "hm"),
                new StreamEvent.ThinkingEnd(0, "hm"),
                new StreamEvent.MessageStart(1),
                new StreamEvent.MessageContent(1, "Hello"),
                new StreamEvent.MessageEnd(1, "Hello"),
                new StreamEvent.ToolCallStart(2, "tool", Map.of()),
                new StreamEvent.ToolCallName(2, "read_file"),
                new StreamEvent.ToolCallArgument(2, "path", MAPPER.readTree("\"a.txt\"")),
                new StreamEvent.ToolCallContent(2, "{}"),
                new StreamEvent.ToolCallEnd(2, "{}", new ToolCall("local", "read_file", arguments)),
                new StreamEvent.ToolCallEnd(3, "{", new ToolCallError("{", "not JSON")),
                new StreamEvent.Section(4, "answer", "42"),
                new LoopEvent.LoopStart("Fix the build"),
                new LoopEvent.IterationStart(3),
                new LoopEvent.ToolResultEvent("local", "read_file", arguments, "hello"),
                new LoopEvent.ToolResultError("fs", "nope", "unknown tool"),
                new LoopEvent.ToolResultError(null, null, "undecodable"),
                new LoopEvent.NoToolCall(2),
                new LoopEvent.PlanUpdate(List.of(new PlanStep("Read a.txt", PlanStatus.IN_PROGRESS))),
                new LoopEvent.Retry(2, "HTTP 429", 1500),
                new LoopEvent.ApprovalRequired("call_1_1", "fs", "write", arguments),
                new LoopEvent.Approval("call_1_1", false, "not now"),
                new LoopEvent.Approval("call_1_2", true, ""),
                new LoopEvent.LoopEnd(LoopEndReason.MAX_ITERATIONS, "stopped"));
        for (AgentEvent event : events) {
            assertThat(roundTrip(event, true)).as(event.type()).isEqualTo(event);
        }
        assertThat(roundTrip(new LoopEvent.IterationStart(1), false)).isEqualTo(new LoopEvent.IterationStart(1));
    }

    @Test
    void aSubAgentsEventComesBackNestedUnderItsAgentAndTheCallThatRunsIt() throws Exception {
        LoopEvent.SubAgentEvent nested = new LoopEvent.SubAgentEvent("researcher", "call_1_1",
                new StreamEvent.MessageContent(3, "hi"));
        assertThat(EventJson.fromJson(EventJson.toJson(nested, true))).contains(nested);
        // deeper: the wire names the deepest level, which is what comes back
        LoopEvent.SubAgentEvent deeper = new LoopEvent.SubAgentEvent("lead", "call_1_1",
                new LoopEvent.SubAgentEvent("helper", "call_2_1", new LoopEvent.LoopStart("look")));
        assertThat(EventJson.fromJson(EventJson.toJson(deeper, true)))
                .contains(new LoopEvent.SubAgentEvent("helper", "call_2_1", new LoopEvent.LoopStart("look")));
    }

    @Test
    void aTypeThisVersionDoesNotKnowIsSkipped() throws Exception {
        assertThat(EventJson.fromJson(MAPPER.readTree("{\"type\":\"from_the_future\",\"chunk\":1}"))).isEmpty();
    }

    /** A wire form from elsewhere: members of the wrong type read as 0 or "" (as on Jackson 2), not as an exception. */
    @Test
    void membersOfTheWrongTypeReadAsZeroOrEmpty() throws Exception {
        assertThat(EventJson.fromJson(MAPPER.readTree("{\"type\":\"retry\",\"attempt\":\"two\",\"reason\":{\"a\":1},\"delay_ms\":[5]}")))
                .contains(new LoopEvent.Retry(0, "", 0));
        assertThat(EventJson.fromJson(MAPPER.readTree("{\"type\":\"iteration_start\",\"iteration\":2,\"chunk\":{}}")))
                .contains(new LoopEvent.IterationStart(2));
    }
}
