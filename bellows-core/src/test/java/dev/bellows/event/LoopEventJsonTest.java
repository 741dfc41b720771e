package dev.bellows.event;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The loop events' wire form: exactly the fields of cli.md's jsonl table, in that order. */
class LoopEventJsonTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private static String wire(AgentEvent event) throws Exception {
        return MAPPER.writeValueAsString(EventJson.toJson(event, false));
    }

    @Test
    void everyLoopEventHasTheFieldsOfTheJsonlTable() throws Exception {
        ObjectNode arguments = (ObjectNode) MAPPER.readTree("{\"path\":\"a.txt\",\"lines\":[1,2]}");
        assertThat(wire(new LoopEvent.LoopStart("Fix the build")))
                .isEqualTo("{\"type\":\"loop_start\",\"task\":\"Fix the build\"}");
        assertThat(wire(new LoopEvent.IterationStart(1)))
                .isEqualTo("{\"type\":\"iteration_start\",\"iteration\":1}");
        assertThat(wire(new LoopEvent.ToolResultEvent("local", "read_file", arguments, "hello")))
                .isEqualTo("{\"type\":\"tool_result\",\"server_name\":\"local\",\"tool_name\":\"read_file\","
                        + "\"arguments\":{\"path\":\"a.txt\",\"lines\":[1,2]},\"result\":\"hello\"}");
        assertThat(wire(new LoopEvent.ToolResultError("fs", "nope", "unknown tool")))
                .isEqualTo("{\"type\":\"tool_result_error\",\"server_name\":\"fs\",\"tool_name\":\"nope\","
                        + "\"error\":\"unknown tool\"}");
        assertThat(wire(new LoopEvent.NoToolCall(3)))
                .isEqualTo("{\"type\":\"no_tool_call\",\"iteration\":3}");
        assertThat(wire(new LoopEvent.PlanUpdate(List.of(new PlanStep("Read", PlanStatus.COMPLETED),
                new PlanStep("Fix", PlanStatus.IN_PROGRESS), new PlanStep("Test", PlanStatus.PENDING)))))
                .isEqualTo("{\"type\":\"plan_update\",\"steps\":[{\"description\":\"Read\",\"status\":\"completed\"},"
                        + "{\"description\":\"Fix\",\"status\":\"in_progress\"},"
                        + "{\"description\":\"Test\",\"status\":\"pending\"}]}");
        assertThat(wire(new LoopEvent.Retry(2, "HTTP 503: overloaded", 500)))
                .isEqualTo("{\"type\":\"retry\",\"attempt\":2,\"reason\":\"HTTP 503: overloaded\",\"delay_ms\":500}");
        assertThat(wire(new LoopEvent.ApprovalRequired("call_3_1", "files", "write_file", arguments)))
                .isEqualTo("{\"type\":\"approval_required\",\"id\":\"call_3_1\",\"server_name\":\"files\","
                        + "\"tool_name\":\"write_file\",\"arguments\":{\"path\":\"a.txt\",\"lines\":[1,2]}}");
        assertThat(wire(new LoopEvent.Approval("call_3_1", false, "use the staging folder")))
                .isEqualTo("{\"type\":\"approval\",\"id\":\"call_3_1\",\"decision\":\"denied\","
                        + "\"reason\":\"use the staging folder\"}");
        assertThat(wire(new LoopEvent.Approval("call_3_2", true, "")))
                .isEqualTo("{\"type\":\"approval\",\"id\":\"call_3_2\",\"decision\":\"approved\",\"reason\":\"\"}");
        assertThat(wire(new LoopEvent.LoopEnd(LoopEndReason.INTERRUPTED, "waiting")))
                .isEqualTo("{\"type\":\"loop_end\",\"reason\":\"interrupted\",\"result\":\"waiting\"}");
        assertThat(wire(new LoopEvent.LoopEnd(LoopEndReason.CIRCUIT_BREAKER, "stopped")))
                .isEqualTo("{\"type\":\"loop_end\",\"reason\":\"circuit_breaker\",\"result\":\"stopped\"}");
    }

    @Test
    void anUndecodableCallsErrorHasNeitherServerNorToolName() throws Exception {
        assertThat(wire(new LoopEvent.ToolResultError(null, null, "not JSON")))
                .isEqualTo("{\"type\":\"tool_result_error\",\"error\":\"not JSON\"}");
    }

    @Test
    void theJsonSharesTheEventsFrozenArgumentsSoNothingCanChangeTheEvent() throws Exception {
        ObjectNode arguments = (ObjectNode) MAPPER.readTree("{\"a\":1}");
        var event = new LoopEvent.ToolResultEvent("local", "t", arguments, "r");
        arguments.put("a", 3);
        assertThatThrownBy(() -> ((ObjectNode) EventJson.toJson(event).get("arguments")).put("a", 2))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(event.arguments().get("a").asInt()).isEqualTo(1);
    }

    @Test
    void streamEventsAsAgentEventsKeepOrDropTheChunk() throws Exception {
        AgentEvent event = new StreamEvent.ToolCallName(3, "read_file");
        assertThat(MAPPER.writeValueAsString(EventJson.toJson(event)))
                .isEqualTo("{\"type\":\"tool_call_name\",\"chunk\":3,\"tool_name\":\"read_file\"}");
        assertThat(wire(event)).isEqualTo("{\"type\":\"tool_call_name\",\"tool_name\":\"read_file\"}");
    }

    @Test
    void reasonsHaveTheSpecsWireNamesAndOnlyTheModelsOwnEndingsAreSuccessful() {
        assertThat(Arrays.stream(LoopEndReason.values()).map(LoopEndReason::wireName)).containsExactly(
                "task_completion", "ask_question", "converse", "max_iterations", "circuit_breaker", "error", "cancelled",
                "interrupted");
        assertThat(Arrays.stream(LoopEndReason.values()).filter(LoopEndReason::successful)).containsExactly(
                LoopEndReason.TASK_COMPLETION, LoopEndReason.ASK_QUESTION, LoopEndReason.CONVERSE);
        for (LoopEndReason reason : LoopEndReason.values()) {
            assertThat(LoopEndReason.fromWireName(reason.wireName())).contains(reason);
        }
        assertThat(LoopEndReason.fromWireName("TASK_COMPLETION")).isEmpty();
    }

    @Test
    void typesAreTheWireNames() {
        assertThat(List.of(new LoopEvent.LoopStart("t"), new LoopEvent.IterationStart(1),
                new LoopEvent.ToolResultError(null, null, "e"), new LoopEvent.NoToolCall(1),
                new LoopEvent.PlanUpdate(List.of()), new LoopEvent.Retry(2, "r", 0),
                new LoopEvent.LoopEnd(LoopEndReason.ERROR, "x")).stream().map(AgentEvent::type))
                .containsExactly("loop_start", "iteration_start", "tool_result_error", "no_tool_call", "plan_update",
                        "retry", "loop_end");
        assertThatThrownBy(() -> new LoopEvent.IterationStart(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
