package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A quick yes for the common argument schema: an object of typed properties, some required,
 * maybe no others (what {@link JsonSchemas#forRecord} writes for a record of plain fields).
 * It answers only "valid as written, nothing to coerce" or "ask the validator": a value it
 * accepts is one the full check ({@link Coercer}) would return unchanged and without an error,
 * so the validator, its tree copy and its error objects are skipped for the usual call. For
 * any other schema ({@code enum}, {@code minimum}, {@code format}, {@code $ref}, arrays...)
 * there is no plain schema, and every call goes to the validator as before.
 */
final class PlainSchema {

    /** Keywords that only annotate: they change no verdict of a validator. */
    private static final Set<String> ANNOTATIONS = Set.of("description", "title", "$comment", "default", "examples",
            "$schema");
    private static final Set<String> SCALARS = Set.of("string", "integer", "number", "boolean", "null");

    private final String type;                      // null: any value (a property schema with no keyword but annotations)
    private final Map<String, PlainSchema> properties;  // for "object"
    private final List<String> required;
    private final boolean closed;                   // additionalProperties: false

    private PlainSchema(String type, Map<String, PlainSchema> properties, List<String> required, boolean closed) {
        this.type = type;
        this.properties = properties;
        this.required = required;
        this.closed = closed;
    }

    /** The plain reading of {@code schema}, or null when it uses anything beyond it. */
    static PlainSchema of(JsonNode schema) {
        return of(schema, 0);
    }

    private static PlainSchema of(JsonNode schema, int depth) {
        if (!schema.isObject() || depth > 8) {
            return null;
        }
        String type = null;
        Map<String, PlainSchema> properties = Map.of();
        List<String> required = List.of();
        boolean closed = false;
        for (Map.Entry<String, JsonNode> keyword : schema.properties()) {
            JsonNode value = keyword.getValue();
            switch (keyword.getKey()) {
                case "type" -> {
                    if (!value.isString() || !(SCALARS.contains(value.stringValue(null)) || "object".equals(value.stringValue(null)))) {
                        return null;
                    }
                    type = value.stringValue(null);
                }
                case "properties" -> {
                    if (!value.isObject()) {
                        return null;
                    }
                    properties = new LinkedHashMap<>();
                    for (Map.Entry<String, JsonNode> property : value.properties()) {
                        PlainSchema plain = of(property.getValue(), depth + 1);
                        if (plain == null) {
                            return null;
                        }
                        properties.put(property.getKey(), plain);
                    }
                }
                case "required" -> {
                    if (!value.isArray()) {
                        return null;
                    }
                    required = new ArrayList<>();
                    Set<String> seen = new HashSet<>();
                    for (JsonNode name : value) {
                        if (!name.isString() || !seen.add(name.stringValue(null))) {
                            return null;
                        }
                        required.add(name.stringValue(null));
                    }
                }
                case "additionalProperties" -> {
                    if (!value.isBoolean()) {
                        return null;
                    }
                    closed = !value.booleanValue();
                }
                default -> {
                    if (!ANNOTATIONS.contains(keyword.getKey())) {
                        return null;
                    }
                }
            }
        }
        boolean objectKeywords = !properties.isEmpty() || !required.isEmpty() || closed;
        if (objectKeywords && !"object".equals(type)) {
            return null;            // object keywords without the type apply only to objects: left to the validator
        }
        return new PlainSchema(type, properties, required, closed);
    }

    /**
     * True when {@code value} is valid as written and holds no number the full check would
     * turn into an integer; false means only "not sure".
     */
    boolean accepts(JsonNode value) {
        if (type == null) {
            return !hasFraction(value);
        }
        return switch (type) {
            case "string" -> value.isString();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            // 3.0 is an integer to JSON Schema, but the full check turns it into 3: not plain.
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "object" -> value.isObject() && acceptsObject(value);
            default -> false;
        };
    }

    private boolean acceptsObject(JsonNode object) {
        for (String name : required) {
            if (!object.has(name)) {
                return false;
            }
        }
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            PlainSchema property = properties.get(field.getKey());
            if (property == null ? closed || hasFraction(field.getValue()) : !property.accepts(field.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** A number written with a fraction or exponent anywhere inside: the full check looks at each. */
    private static boolean hasFraction(JsonNode value) {
        if (value.isNumber()) {
            return !value.isIntegralNumber();
        }
        if (value.isContainer()) {
            for (JsonNode item : value) {
                if (hasFraction(item)) {
                    return true;
                }
            }
        }
        return false;
    }
}
