package dev.bellows.json.internal;

import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.RandomAccess;
import java.util.Set;
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
 * copied again: {@link #freeze} returns it as it is. A reader that builds a tree itself makes
 * it frozen from the start ({@link #object}, {@link #array}), with no mutable tree to copy.
 *
 * <p>An object of up to {@value #SMALL} properties keeps them in one array of entries, made
 * once and handed out by every iteration (tool arguments are such objects: a
 * {@code LinkedHashMap} behind an unmodifiable view took a table, an entry per property and a
 * wrapper per entry visited); a larger one keeps a {@code LinkedHashMap}, for its lookups.
 *
 * <p><b>Not API.</b> Thread-safe: a frozen tree can be shared freely.
 */
public final class FrozenJson {

    /** The most properties an object keeps in an array, looked up by a scan. */
    static final int SMALL = 16;

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
            JsonNode[] items = new JsonNode[array.size()];
            for (int i = 0; i < items.length; i++) {
                items[i] = freeze(array.get(i));
            }
            return new FrozenArray(new Items(items));
        }
        return node;
    }

    /** As {@link #freeze(JsonNode)}, for an object. */
    public static ObjectNode freeze(ObjectNode object) {
        if (object instanceof FrozenObject) {
            return object;
        }
        @SuppressWarnings("unchecked")
        Map.Entry<String, JsonNode>[] entries = new Map.Entry[object.size()];
        int i = 0;
        for (Map.Entry<String, JsonNode> entry : object.properties()) {
            entries[i++] = Map.entry(entry.getKey(), freeze(entry.getValue()));
        }
        return frozen(entries); // the keys of an ObjectNode are distinct already
    }

    /**
     * A frozen object of these entries, whose values are frozen already, in this order; a key
     * given twice keeps its first place and its last value (as Jackson's tree reader keeps it).
     * The array becomes the object's: the caller must not touch it again.
     */
    public static ObjectNode object(Map.Entry<String, JsonNode>[] entries) {
        if (entries.length > SMALL) {
            return frozen(entries);
        }
        int size = 0;
        for (Map.Entry<String, JsonNode> entry : entries) {
            int at = 0;
            while (at < size && !entries[at].getKey().equals(entry.getKey())) {
                at++;
            }
            entries[at] = entry;
            if (at == size) {
                size++;
            }
        }
        return frozen(size == entries.length ? entries : Arrays.copyOf(entries, size));
    }

    /**
     * A frozen array of these items, which are frozen already. The array becomes the tree's:
     * the caller must not touch it again.
     */
    public static ArrayNode array(JsonNode[] items) {
        return new FrozenArray(new Items(items));
    }

    /** True when the tree refuses changes (frozen, or a leaf). */
    public static boolean isFrozen(JsonNode node) {
        return !(node instanceof ObjectNode || node instanceof ArrayNode)
                || node instanceof FrozenObject || node instanceof FrozenArray;
    }

    /** Over entries whose values are frozen; a later one of the same key replaces an earlier one (large objects). */
    private static ObjectNode frozen(Map.Entry<String, JsonNode>[] entries) {
        if (entries.length <= SMALL) {
            return new FrozenObject(new Properties(entries));
        }
        Map<String, JsonNode> children = new LinkedHashMap<>(entries.length * 4 / 3 + 1);
        for (Map.Entry<String, JsonNode> entry : entries) {
            children.put(entry.getKey(), entry.getValue());
        }
        return new FrozenObject(Collections.unmodifiableMap(children));
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

    /**
     * A small object's properties: distinct keys in order, found by a scan. Every mutator
     * throws (AbstractMap's own, and the immutable entries' {@code setValue}).
     */
    private static final class Properties extends AbstractMap<String, JsonNode> {
        private final Map.Entry<String, JsonNode>[] entries;
        private Set<Map.Entry<String, JsonNode>> entrySet;

        Properties(Map.Entry<String, JsonNode>[] entries) {
            this.entries = entries;
        }

        @Override
        public int size() {
            return entries.length;
        }

        @Override
        public JsonNode get(Object key) {
            for (Map.Entry<String, JsonNode> entry : entries) {
                if (entry.getKey().equals(key)) {
                    return entry.getValue();
                }
            }
            return null;
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;   // no value is null in a tree
        }

        @Override
        public JsonNode remove(Object key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void clear() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Set<Map.Entry<String, JsonNode>> entrySet() {
            Set<Map.Entry<String, JsonNode>> set = entrySet;
            if (set == null) {
                set = new AbstractSet<>() {
                    @Override
                    public Iterator<Map.Entry<String, JsonNode>> iterator() {
                        return new Iterator<>() {
                            private int next;

                            @Override
                            public boolean hasNext() {
                                return next < entries.length;
                            }

                            @Override
                            public Map.Entry<String, JsonNode> next() {
                                if (next >= entries.length) {
                                    throw new NoSuchElementException();
                                }
                                return entries[next++];
                            }
                        };
                    }

                    @Override
                    public int size() {
                        return entries.length;
                    }
                };
                entrySet = set;   // a race makes two equal views, harmless
            }
            return set;
        }
    }

    /** An array's items, unmodifiable (AbstractList's mutators throw). */
    private static final class Items extends AbstractList<JsonNode> implements RandomAccess {
        private final JsonNode[] items;

        Items(JsonNode[] items) {
            this.items = items;
        }

        @Override
        public JsonNode get(int index) {
            return items[index];
        }

        @Override
        public int size() {
            return items.length;
        }
    }
}
