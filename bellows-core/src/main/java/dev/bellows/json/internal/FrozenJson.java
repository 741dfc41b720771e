package dev.bellows.json.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Read-only JSON trees for the public API (DEVELOPERS.md, "JSON in the public API"): every
 * record that takes JSON freezes it in its constructor, and the tools Bellows makes freeze their
 * schemas once. Jackson 3's own node classes, so the schema validator, the writers and every
 * {@code JsonNode} reader take them as they are, but every mutator refuses with
 * {@link UnsupportedOperationException} (the children live in unmodifiable collections,
 * entries' {@code setValue} included). {@link JsonNode#deepCopy()} gives a mutable copy.
 *
 * <p>Freezing copies only the containers (one map or list per object or array); strings,
 * numbers and the other leaves are immutable already and shared. A tree frozen once is not
 * copied again: {@link #freeze} returns it as it is.
 *
 * <p><b>Not API.</b> Thread-safe: a frozen tree can be shared freely.
 */
public final class FrozenJson {

    private FrozenJson() {
    }

    /** The tree, read-only: the node itself when it is a leaf or frozen already, else a frozen copy. */
    public static JsonNode freeze(JsonNode node) {
        if (node instanceof FrozenObject || node instanceof FrozenArray) {
            return node;
        }
        if (node instanceof ObjectNode object) {
            return freeze(object);
        }
        if (node instanceof ArrayNode array) {
            List<JsonNode> items = new ArrayList<>(array.size());
            array.forEach(item -> items.add(freeze(item)));
            return new FrozenArray(Collections.unmodifiableList(items));
        }
        return node;
    }

    /** As {@link #freeze(JsonNode)}, for an object. */
    public static ObjectNode freeze(ObjectNode object) {
        if (object instanceof FrozenObject) {
            return object;
        }
        Map<String, JsonNode> children = new LinkedHashMap<>(Math.max(4, object.size() * 4 / 3 + 1));
        object.properties().forEach(entry -> children.put(entry.getKey(), freeze(entry.getValue())));
        return new FrozenObject(Collections.unmodifiableMap(children));
    }

    /** True when the tree refuses changes (frozen, or a leaf). */
    public static boolean isFrozen(JsonNode node) {
        return !(node instanceof ObjectNode || node instanceof ArrayNode)
                || node instanceof FrozenObject || node instanceof FrozenArray;
    }

    private static final class FrozenObject extends ObjectNode {
        private static final long serialVersionUID = 1L;

        FrozenObject(Map<String, JsonNode> children) {
            super(JsonNodeFactory.instance, children);
        }
    }

    private static final class FrozenArray extends ArrayNode {
        private static final long serialVersionUID = 1L;

        FrozenArray(List<JsonNode> items) {
            super(JsonNodeFactory.instance, items);
        }
    }
}
