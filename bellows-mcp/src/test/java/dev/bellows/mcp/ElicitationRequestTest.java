package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.json.internal.Jackson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A server's question and the user's answer hold read-only JSON; the caller's trees are copied once and never changed. */
class ElicitationRequestTest {

    private static ObjectNode tree(String json) {
        return (ObjectNode) Jackson.JSON.readTree(json);
    }

    @Test
    void theSchemaItsFieldsAndTheDefaultsAreFrozen() {
        ObjectNode given = tree("{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"default\":30}}}");
        ElicitationRequest request = new ElicitationRequest("people", "How old?", given);
        given.withObjectProperty("properties").withObjectProperty("age").put("default", 40);
        ElicitationRequest.Field age = request.fields().get(0);
        assertThat(age.defaultValue()).contains(Jackson.JSON.readTree("30"));
        assertThat(age.schema()).isSameAs(request.requestedSchema().get("properties").get("age"));   // shared, not copied
        for (JsonNode tree : new JsonNode[] {request.requestedSchema(), age.schema(), request.defaults().orElseThrow()}) {
            assertThatThrownBy(() -> ((ObjectNode) tree).put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(new ElicitationRequest("people", null, null).requestedSchema()).isEqualTo(tree("{}"));
        assertThatThrownBy(() -> new ElicitationRequest("people", "", Jackson.JSON.readTree("[]")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withDefaultsLeavesTheContentAloneAndAnAcceptKeepsAFrozenCopy() {
        ElicitationRequest request = new ElicitationRequest("people", "",
                tree("{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"default\":30}}}"));
        ObjectNode content = tree("{\"name\":\"Jo\"}");
        JsonNode completed = request.withDefaults(content);
        assertThat(completed).isEqualTo(tree("{\"name\":\"Jo\",\"age\":30}"));
        assertThat(content).isEqualTo(tree("{\"name\":\"Jo\"}"));
        ElicitationResult.Accept accept = new ElicitationResult.Accept(content);
        content.put("name", "changed");
        assertThat(accept.content().get("name").asString()).isEqualTo("Jo");
        assertThatThrownBy(() -> ((ObjectNode) accept.content()).remove("name"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((ObjectNode) completed).remove("name"))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
