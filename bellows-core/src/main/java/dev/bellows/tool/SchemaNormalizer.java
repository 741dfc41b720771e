package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Prepares a tool's schema, as a stranger wrote it, for the validator: a copy (the tool's own
 * schema is never changed) in which
 * <ul>
 *   <li>an unknown {@code $schema} is dropped, so the schema is read as 2020-12 rather than
 *       refused (many servers write {@code http://json-schema.org/schema#});</li>
 *   <li>OpenAPI's {@code "nullable": true} becomes {@code "null"} among the types, as the
 *       schemas of OpenAPI-minded servers mean it;</li>
 *   <li>draft 4's boolean {@code exclusiveMinimum}/{@code exclusiveMaximum} next to
 *       {@code minimum}/{@code maximum} become today's numeric form, when the schema does not
 *       declare draft 4 itself;</li>
 * </ul>
 * and what the validator would only find in the middle of a call, or crash on, is reported
 * now: a pattern Java cannot compile, a {@code $ref} to a definition that does not exist, and
 * a {@code $ref} loop that never reaches a value.
 */
final class SchemaNormalizer {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final List<String> ONE_SCHEMA = List.of("additionalProperties", "additionalItems", "contains",
            "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "items");
    private static final List<String> SCHEMA_LISTS = List.of("allOf", "anyOf", "oneOf", "prefixItems", "items");
    private static final List<String> SCHEMA_MAPS = List.of("properties", "patternProperties", "$defs",
            "definitions", "dependentSchemas", "dependencies");
    // Keywords whose schemas apply to the same value: a loop through only these never ends.
    private static final List<String> IN_PLACE = List.of("allOf", "anyOf", "oneOf", "not", "if", "then", "else");

    private final ObjectNode root;
    private final SpecificationVersion version;
    private final boolean nestedIds;

    private SchemaNormalizer(ObjectNode root, SpecificationVersion version) {
        this.root = root;
        this.version = version;
        this.nestedIds = hasNestedId(root, true);
    }

    /** The normalized copy; its {@code $schema}, if any, is one the validator knows. */
    static ObjectNode normalize(JsonNode schema) {
        ObjectNode copy = (ObjectNode) schema.deepCopy();
        SpecificationVersion version = SpecificationVersion.DRAFT_2020_12;
        JsonNode declared = copy.get("$schema");
        if (declared != null) {
            Optional<SpecificationVersion> known = declared.isString() ? dialect(declared.stringValue(null)) : Optional.empty();
            if (known.isPresent()) {
                version = known.get();
                copy.put("$schema", version.getDialectId());
            } else {
                copy.remove("$schema");
            }
        }
        SchemaNormalizer normalizer = new SchemaNormalizer(copy, version);
        normalizer.walk(copy, "");
        normalizer.checkLoops();
        return copy;
    }

    /** The version a {@code $schema} names, with or without its trailing {@code #}, by http or https. */
    static Optional<SpecificationVersion> dialect(String id) {
        String trimmed = id.strip();
        String bare = trimmed.endsWith("#") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        String rest = bare.startsWith("https://") ? bare.substring(8) : bare.startsWith("http://") ? bare.substring(7) : null;
        List<String> spellings = rest == null ? List.of(trimmed)
                : List.of(trimmed, "http://" + rest, "http://" + rest + "#", "https://" + rest, "https://" + rest + "#");
        for (String spelling : spellings) {
            Optional<SpecificationVersion> known = SpecificationVersion.fromDialectId(spelling);
            if (known.isPresent()) {
                return known;
            }
        }
        return Optional.empty();
    }

    private void walk(JsonNode schema, String at) {
        if (!(schema instanceof ObjectNode object)) {
            return;
        }
        if (object.path("nullable").asBoolean(false)) {
            allowNull(object);
        }
        if (version != SpecificationVersion.DRAFT_4) {
            draft4Bound(object, "minimum", "exclusiveMinimum");
            draft4Bound(object, "maximum", "exclusiveMaximum");
        }
        JsonNode pattern = object.get("pattern");
        if (pattern != null && pattern.isString()) {
            compile(pattern.stringValue(null), at + "/pattern");
        }
        JsonNode ref = object.get("$ref");
        if (ref != null && ref.isString()) {
            resolve(ref.stringValue(null), at);
        }
        for (String keyword : ONE_SCHEMA) {
            JsonNode child = object.get(keyword);
            if (child != null && (child.isObject() || child.isBoolean())) {
                walk(child, at + "/" + keyword);
            }
        }
        for (String keyword : SCHEMA_LISTS) {
            JsonNode children = object.get(keyword);
            if (children != null && children.isArray()) {
                for (int i = 0; i < children.size(); i++) {
                    walk(children.get(i), at + "/" + keyword + "/" + i);
                }
            }
        }
        for (String keyword : SCHEMA_MAPS) {
            JsonNode children = object.get(keyword);
            if (children != null && children.isObject()) {
                for (Map.Entry<String, JsonNode> child : children.properties()) {
                    String childAt = at + "/" + keyword + "/" + escape(child.getKey());
                    if (keyword.equals("patternProperties")) {
                        compile(child.getKey(), childAt);
                    }
                    walk(child.getValue(), childAt);
                }
            }
        }
    }

    private static void allowNull(ObjectNode schema) {
        JsonNode type = schema.get("type");
        if (type != null && type.isString() && !type.stringValue(null).equals("null")) {
            schema.set("type", NODES.arrayNode().add(type.stringValue(null)).add("null"));
        } else if (type instanceof ArrayNode types && !contains(types, "null")) {
            ArrayNode widened = types.deepCopy();
            widened.add("null");
            schema.set("type", widened);
        }
        JsonNode values = schema.get("enum");
        if (values instanceof ArrayNode allowed && !contains(allowed, null)) {
            ArrayNode widened = allowed.deepCopy();
            widened.addNull();
            schema.set("enum", widened);
        }
    }

    private static boolean contains(ArrayNode array, String text) {
        for (JsonNode each : array) {
            if (text == null ? each.isNull() : each.isString() && each.stringValue(null).equals(text)) {
                return true;
            }
        }
        return false;
    }

    /** Draft 4's {@code "minimum": 0, "exclusiveMinimum": true} is today's {@code "exclusiveMinimum": 0}. */
    private static void draft4Bound(ObjectNode schema, String bound, String exclusive) {
        JsonNode flag = schema.get(exclusive);
        if (flag == null || !flag.isBoolean()) {
            return;
        }
        JsonNode limit = schema.get(bound);
        schema.remove(exclusive);
        if (flag.booleanValue() && limit != null && limit.isNumber()) {
            schema.remove(bound);
            schema.set(exclusive, limit);
        }
    }

    private static void compile(String regex, String at) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new InvalidSchemaException("the tool's JSON Schema has a pattern that is not a regular expression"
                    + " at " + display(at) + ": \"" + regex + "\" (" + e.getDescription() + ")");
        }
    }

    /** The local target of a {@code $ref}, or {@code null} for one the validator resolves (remote, anchors). */
    private JsonNode resolve(String ref, String at) {
        if (nestedIds || !(ref.equals("#") || ref.startsWith("#/"))) {
            return null;
        }
        JsonNode target = root.at(ref.substring(1));
        if (target.isMissingNode()) {
            throw new InvalidSchemaException("the tool's JSON Schema refers to " + ref
                    + ", which it does not define (under $defs or definitions)"
                    + (at.isEmpty() ? "" : "; the reference is at " + display(at)));
        }
        return target;
    }

    /**
     * A loop of {@code $ref}s and in-place keywords ({@code allOf}, {@code not}...) would check
     * the same value forever. Keywords that move on to another value (properties, items...)
     * start new chains: recursion through them ends with the value.
     */
    private void checkLoops() {
        Set<JsonNode> started = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        java.util.ArrayDeque<JsonNode> starts = new java.util.ArrayDeque<>(List.of(root));
        while (!starts.isEmpty()) {
            JsonNode start = starts.pop();
            if (started.add(start)) {
                visit(start, new IdentityHashMap<>(), new ArrayList<>(), starts);
            }
        }
    }

    private void visit(JsonNode schema, Map<JsonNode, Boolean> state, List<String> refs,
                       java.util.Deque<JsonNode> starts) {
        if (!schema.isObject()) {
            return;
        }
        Boolean seen = state.get(schema);
        if (seen != null) {
            if (!seen) {
                throw new InvalidSchemaException("the tool's JSON Schema refers to itself without end ($ref cycle: "
                        + String.join(" -> ", refs) + ") without ever reaching a value");
            }
            return;
        }
        state.put(schema, false);
        JsonNode ref = schema.get("$ref");
        JsonNode target = ref != null && ref.isString() ? resolve(ref.stringValue(null), "") : null;
        if (target != null) {
            refs.add(ref.stringValue(null));
            visit(target, state, refs, starts);
            refs.removeLast();
        }
        for (String keyword : IN_PLACE) {
            JsonNode child = schema.get(keyword);
            if (child != null && child.isArray()) {
                child.forEach(each -> visit(each, state, refs, starts));
            } else if (child != null) {
                visit(child, state, refs, starts);
            }
        }
        state.put(schema, true);
        starts.addAll(subschemasMovingOn(schema));
    }

    private static List<JsonNode> subschemasMovingOn(JsonNode schema) {
        List<JsonNode> children = new ArrayList<>();
        for (String keyword : List.of("additionalProperties", "additionalItems", "contains", "propertyNames",
                "unevaluatedProperties", "unevaluatedItems", "items")) {
            JsonNode child = schema.get(keyword);
            if (child != null && child.isObject()) {
                children.add(child);
            }
        }
        for (String keyword : List.of("prefixItems", "items")) {
            JsonNode list = schema.get(keyword);
            if (list != null && list.isArray()) {
                list.forEach(children::add);
            }
        }
        for (String keyword : List.of("properties", "patternProperties")) {
            JsonNode map = schema.get(keyword);
            if (map != null && map.isObject()) {
                map.forEach(children::add);
            }
        }
        return children;
    }

    private static boolean hasNestedId(JsonNode schema, boolean isRoot) {
        if (schema.isObject()) {
            if (!isRoot && schema.has("$id") && schema.get("$id").isString()) {
                return true;
            }
            for (JsonNode child : schema) {
                if (hasNestedId(child, false)) {
                    return true;
                }
            }
        } else if (schema.isArray()) {
            for (JsonNode child : schema) {
                if (hasNestedId(child, false)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    private static String display(String at) {
        return at.isEmpty() ? "its root" : at;
    }
}
