package dev.bellows.tool.internal;

import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A JSON Schema in one compact line, in a TypeScript-like notation a model reads at a glance:
 * {@code {"city": string, "unit"?: "celsius"|"fahrenheit", "days": integer[]}}. Optional
 * properties are marked {@code ?}, enums and constants are written as their values, arrays as
 * {@code T[]}, maps as {@code {string: T}}, unions with {@code |}, {@code allOf} with
 * {@code &}. Descriptions and bounds are left out: the full schema is in the prompt; this line
 * is what an error message ends with, to show the shape to aim for.
 */
public final class SchemaSummary {

    // Deeper than this, the line would stop being a glance; and a $ref cycle must end somewhere.
    private static final int MAX_DEPTH = 8;

    private SchemaSummary() {
    }

    /** The schema in one line; {@code $ref}s are resolved within the schema itself. */
    public static String of(JsonNode schema) {
        return of(schema, schema);
    }

    /** The schema in one line, with {@code $ref}s resolved within {@code root}. */
    public static String of(JsonNode schema, JsonNode root) {
        return new Renderer(root).render(schema, 0);
    }

    private record Renderer(JsonNode root) {

        String render(JsonNode schema, int depth) {
            if (schema == null || schema.isBoolean()) {
                return schema != null && !schema.booleanValue() ? "never" : "any";
            }
            if (!schema.isObject()) {
                return "any";
            }
            if (depth > MAX_DEPTH) {
                return "…";
            }
            JsonNode ref = schema.get("$ref");
            if (ref != null && ref.isString()) {
                String target = ref.stringValue(null);
                JsonNode resolved = target.startsWith("#") ? root.at(target.substring(1)) : null;
                return resolved == null || resolved.isMissingNode()
                        ? target.substring(target.lastIndexOf('/') + 1) : render(resolved, depth + 1);
            }
            if (schema.has("const")) {
                return schema.get("const").toString();
            }
            JsonNode values = schema.get("enum");
            if (values != null && values.isArray() && !values.isEmpty()) {
                List<String> each = new ArrayList<>();
                values.forEach(value -> each.add(value.toString()));
                return String.join("|", each);
            }
            for (String keyword : List.of("anyOf", "oneOf", "allOf")) {
                JsonNode choices = schema.get(keyword);
                if (choices != null && choices.isArray() && !choices.isEmpty()) {
                    List<String> each = new ArrayList<>();
                    choices.forEach(choice -> each.add(render(choice, depth + 1)));
                    return String.join(keyword.equals("allOf") ? "&" : "|", distinct(each));
                }
            }
            List<String> types = SchemaTypes.of(schema.get("type"));
            if (types.isEmpty()) {
                if (schema.has("properties") || schema.has("additionalProperties")) {
                    return object(schema, depth);
                }
                return schema.has("items") ? array(schema, depth) : "any";
            }
            List<String> each = new ArrayList<>();
            for (String type : types) {
                each.add(switch (type) {
                    case "object" -> object(schema, depth);
                    case "array" -> array(schema, depth);
                    default -> type;
                });
            }
            return String.join("|", each);
        }

        private String object(JsonNode schema, int depth) {
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.get("additionalProperties");
            if (properties.isEmpty()) {
                return additional != null && additional.isObject()
                        ? "{string: " + render(additional, depth + 1) + "}" : "object";
            }
            Set<String> required = new HashSet<>();
            schema.path("required").forEach(name -> required.add(name.asString()));
            List<String> fields = new ArrayList<>();
            for (Map.Entry<String, JsonNode> property : properties.properties()) {
                String name = tools.jackson.databind.node.StringNode.valueOf(property.getKey()).toString();
                fields.add(name + (required.contains(property.getKey()) ? "" : "?") + ": "
                        + render(property.getValue(), depth + 1));
            }
            return "{" + String.join(", ", fields) + "}";
        }

        private String array(JsonNode schema, int depth) {
            JsonNode items = schema.get("items");
            if (items == null || !items.isObject()) {
                return "array";
            }
            String item = render(items, depth + 1);
            return (needsParentheses(item) ? "(" + item + ")" : item) + "[]";
        }

        /** {@code "a"|"b"[]} would read as a union with an array; a top-level | or & needs grouping. */
        private static boolean needsParentheses(String rendered) {
            int nesting = 0;
            boolean inString = false;
            for (int i = 0; i < rendered.length(); i++) {
                char c = rendered.charAt(i);
                if (inString) {
                    if (c == '\\') {
                        i++;
                    } else if (c == '"') {
                        inString = false;
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '(') {
                    nesting++;
                } else if (c == '}' || c == ')') {
                    nesting--;
                } else if ((c == '|' || c == '&') && nesting == 0) {
                    return true;
                }
            }
            return false;
        }

        private static List<String> distinct(List<String> parts) {
            return parts.stream().distinct().toList();
        }
    }
}
