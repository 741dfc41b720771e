package dev.bellows.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.Decision;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.Jackson;
import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** JSON in the public API's records is frozen where it enters: read-only, and the caller's tree is never shared. */
class ReadOnlyJsonTest {

    private static ObjectNode tree(String json) {
        return (ObjectNode) Jackson.JSON.readTree(json);
    }

    @Test
    void aToolCallKeepsAFrozenCopyOfTheArgumentsItIsGiven() {
        ObjectNode given = tree("{\"path\":\"a.txt\",\"lines\":[1,2]}");
        ToolCall call = new ToolCall("local", "read_file", given);
        given.put("path", "changed");
        ((ArrayNode) given.get("lines")).add(3);
        assertThat(call.arguments().toString()).isEqualTo("{\"path\":\"a.txt\",\"lines\":[1,2]}");
        assertThatThrownBy(() -> ((ObjectNode) call.arguments()).put("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((ArrayNode) call.arguments().get("lines")).add(3))
                .isInstanceOf(UnsupportedOperationException.class);
        // a frozen tree is handed on as it is: no copy from one record to the next
        assertThat(new ToolCall("local", "read_file", call.arguments()).arguments()).isSameAs(call.arguments());
        ObjectNode copy = (ObjectNode) call.arguments().deepCopy();
        copy.put("path", "b.txt");
        assertThat(call.arguments().get("path").asString()).isEqualTo("a.txt");
    }

    @Test
    void argumentsThatAreNotAnObjectAreRefused() {
        assertThatThrownBy(() -> new ToolCall("local", "t", Jackson.JSON.readTree("[1]")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> Decision.approve("call_1_1", Jackson.JSON.readTree("\"x\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON object");
    }

    @Test
    void eventsDecisionsAndToolSpecsHoldFrozenCopies() {
        ObjectNode given = tree("{\"path\":\"a.txt\",\"deep\":{\"k\":[1]}}");
        List<JsonNode> held = List.of(
                new LoopEvent.ToolResultEvent("local", "t", given, "done").arguments(),
                new LoopEvent.ApprovalRequired("call_1_1", "local", "t", given).arguments(),
                Decision.approve("call_1_1", given).arguments(),
                new StreamEvent.ToolCallArgument(0, "a", given).value(),
                new ToolSpec("t", "d", given).parameters());
        given.put("path", "changed");
        for (JsonNode tree : held) {
            assertThat(tree.get("path").asString()).isEqualTo("a.txt");
            assertThat(FrozenJson.isFrozen(tree) && FrozenJson.isFrozen(tree.get("deep"))
                    && FrozenJson.isFrozen(tree.get("deep").get("k"))).isTrue();
            assertThatThrownBy(() -> ((ObjectNode) tree).remove("path")).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> ((ObjectNode) tree.get("deep")).put("x", 1))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(Decision.approve("call_1_1").arguments()).isNull();
    }

    @Test
    void anEventsJsonIsANewTreeThatSharesTheFrozenArguments() {
        ToolCall call = new ToolCall("local", "t", tree("{\"path\":\"a.txt\"}"));
        JsonNode json = EventJson.toJson(new LoopEvent.ToolResultEvent("local", "t", call.arguments(), "done"));
        assertThat(json.toString()).isEqualTo(
                "{\"type\":\"tool_result\",\"server_name\":\"local\",\"tool_name\":\"t\",\"arguments\":{\"path\":\"a.txt\"},\"result\":\"done\"}");
        assertThat(json.get("arguments")).isSameAs(call.arguments());
        assertThat(FrozenJson.isFrozen(json)).isFalse();
    }
}
