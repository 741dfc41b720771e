package dev.bellows.json.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class FrozenJsonTest {

    private static final String TEXT = "{\"a\":[1,{\"b\":2.5}],\"c\":\"d\",\"e\":null}";

    @Test
    void aFrozenTreeIsTheSameJsonAndRefusesEveryChange() {
        JsonNode frozen = FrozenJson.freeze(Jackson.JSON.readTree(TEXT));
        assertThat(frozen).isEqualTo(Jackson.JSON.readTree(TEXT));
        assertThat(Jackson.JSON.writeValueAsString(frozen)).isEqualTo("{\"a\":[1,{\"b\":2.5}],\"c\":\"d\",\"e\":null}");
        ObjectNode root = (ObjectNode) frozen;
        ArrayNode array = (ArrayNode) frozen.get("a");
        ObjectNode nested = (ObjectNode) array.get(1);
        for (Runnable change : new Runnable[] {
                () -> root.put("z", 1), () -> root.remove("a"), () -> root.removeAll(), () -> root.set("c", null),
                () -> root.withObjectProperty("n"), () -> root.properties().iterator().next().setValue(null),
                () -> array.add(3), () -> array.remove(0), () -> array.set(0, root), () -> nested.put("q", 1)}) {
            assertThatThrownBy(change::run).isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(frozen).isEqualTo(Jackson.JSON.readTree(TEXT));
    }

    @Test
    void freezingCopiesTheContainersOnceAndLeavesTheInputAlone() {
        ObjectNode input = (ObjectNode) Jackson.JSON.readTree(TEXT);
        JsonNode frozen = FrozenJson.freeze(input);
        input.put("c", "changed");
        assertThat(frozen.get("c").asString()).isEqualTo("d");
        assertThat(FrozenJson.freeze(frozen)).isSameAs(frozen);
        assertThat(FrozenJson.isFrozen(frozen)).isTrue();
        assertThat(FrozenJson.isFrozen(input)).isFalse();
        assertThat(frozen.get("e")).isSameAs(input.get("e"));   // leaves are shared, not copied
    }

    @Test
    void aDeepCopyOfAFrozenTreeCanBeChanged() {
        ObjectNode copy = ((ObjectNode) FrozenJson.freeze(Jackson.JSON.readTree(TEXT))).deepCopy();
        copy.put("z", 1);
        ((ArrayNode) copy.get("a")).add(3);
        assertThat(copy.toString()).isEqualTo("{\"a\":[1,{\"b\":2.5},3],\"c\":\"d\",\"e\":null,\"z\":1}");
    }
}
