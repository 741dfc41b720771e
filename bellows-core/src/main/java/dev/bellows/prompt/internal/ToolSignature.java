package dev.bellows.prompt.internal;

import dev.bellows.json.internal.Jackson;
import dev.bellows.prompt.ToolCatalogStyle;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Renders a tool for the opt-in {@link ToolCatalogStyle#SIGNATURES} catalog as a TypeScript-like
 * signature, the way OpenAI's harmony format shows functions to its models: a JSON Schema costs
 * about three times the tokens of the same arguments written as a type.
 *
 * <pre>
 * // Current weather for a city.
 * get_weather(
 *   city: string, // City name
 *   unit?: "celsius" | "fahrenheit", // default: "celsius"
 * )
 * </pre>
 *
 * <p>What is rendered: {@code type} (several types as a union), {@code properties} with
 * {@code required} ({@code name?:} for optional ones), {@code enum} and {@code const} as
 * literals, {@code items} as {@code T[]}, {@code additionalProperties} given as a schema as
 * {@code [key: string]: T}, {@code anyOf}/{@code oneOf} as unions, OpenAPI's {@code nullable};
 * the description and the annotations and constraints ({@code format}, {@code default},
 * {@code minimum}, {@code pattern}, ...) as comments, {@code // ...} after a parameter or a
 * property and {@code /* ... *}{@code /} after any other type. {@code title}, {@code $schema},
 * {@code $id}, {@code $comment} and {@code additionalProperties: false} are left out (the prompt
 * says to pass only the parameters shown). A schema using anything else ({@code $ref},
 * {@code allOf}, {@code not}, {@code if}, {@code patternProperties}, tuples, ...) or whose
 * arguments are not an object is shown whole, as compact JSON, so nothing is ever lost.
 */
final class ToolSignature {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    /** Keywords left out: they do not change what a valid call looks like. */
    private static final Set<String> IGNORED = Set.of("title", "$schema", "$id", "$comment");
    /** Keywords that make the shape of the type, rendered as TypeScript. */
    private static final Set<String> STRUCTURE = Set.of("type", "properties", "required", "items",
            "additionalProperties", "enum", "const", "anyOf", "oneOf", "nullable", "description");
    /** Keywords shown as {@code key: value} in the comment, in this order. */
    private static final List<String> ANNOTATIONS = List.of("format", "default", "examples", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "minItems",
            "maxItems", "uniqueItems", "minProperties", "maxProperties", "contentMediaType", "contentEncoding",
            "deprecated", "readOnly", "writeOnly");
    private static final String INDENT = "  ";

    private ToolSignature() {
    }

    /**
     * The tool as description comment lines (none when the description is blank) followed by
     * its signature.
     */
    static String render(String name, String description, JsonNode schema) {
        StringBuilder out = new StringBuilder();
        appendLineComments(out, description);
        if (!renderable(schema) || !isObject(schema)) {
            return out.append(name).append("(/* JSON Schema */ ").append(compact(schema)).append(')').toString();
        }
        if (schema.hasNonNull("description")) {
            appendLineComments(out, schema.get("description").asString());
        }
        List<Member> members = members(schema, INDENT);
        boolean block = members.stream().anyMatch(member -> member.text().contains("\n") || !member.comment().isEmpty());
        out.append(name).append('(');
        if (block) {
            out.append('\n');
            appendBlockMembers(out, members, INDENT);
        } else {
            out.append(String.join(", ", members.stream().map(Member::text).toList()));
        }
        return out.append(')').toString();
    }

    /** A property of an object type, as {@code name: type} or {@code name?: type}, and its comment. */
    private record Member(String text, String comment) {
    }

    private static void appendLineComments(StringBuilder out, String text) {
        if (text == null || text.isBlank()) {
            return;
        }
        for (String line : text.strip().split("\n", -1)) {
            String stripped = line.stripTrailing();
            out.append(stripped.isEmpty() ? "//" : "// " + stripped).append('\n');
        }
    }

    private static void appendBlockMembers(StringBuilder out, List<Member> members, String indent) {
        for (Member member : members) {
            out.append(indent).append(member.text()).append(',');
            if (!member.comment().isEmpty()) {
                out.append(" // ").append(member.comment());
            }
            out.append('\n');
        }
    }

    /** The properties of an object schema, in schema order, then required names without a property, then extra keys. */
    private static List<Member> members(JsonNode schema, String indent) {
        Set<String> required = new LinkedHashSet<>();
        schema.path("required").forEach(node -> required.add(node.asString()));
        List<Member> members = new ArrayList<>();
        JsonNode properties = schema.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            String key = key(property.getKey()) + (required.remove(property.getKey()) ? ": " : "?: ");
            members.add(new Member(key + type(property.getValue(), indent), comment(property.getValue())));
        }
        for (String name : required) {
            members.add(new Member(key(name) + ": any", ""));
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && !additional.isBoolean()) {
            members.add(new Member("[key: string]: " + type(additional, indent), comment(additional)));
        } else if (additional != null && additional.asBoolean()) {
            members.add(new Member("[key: string]: any", ""));
        }
        return members;
    }

    /** The type of a schema; {@code indent} is that of the line it starts on, for nested blocks. */
    private static String type(JsonNode schema, String indent) {
        if (schema.isBoolean()) {
            return "any";   // only true gets here: false is not renderable
        }
        String type;
        if (schema.has("const")) {
            type = literal(schema.get("const"));
        } else if (schema.has("enum")) {
            List<String> literals = new ArrayList<>();
            schema.get("enum").forEach(value -> literals.add(literal(value)));
            type = String.join(" | ", literals);
        } else if (schema.has("anyOf") || schema.has("oneOf")) {
            List<String> alternatives = new ArrayList<>();
            schema.path(schema.has("anyOf") ? "anyOf" : "oneOf")
                    .forEach(alternative -> alternatives.add(withInlineComment(alternative, indent, false)));
            type = String.join(" | ", alternatives);
        } else {
            List<String> names = new ArrayList<>();
            JsonNode declared = schema.get("type");
            if (declared == null) {
                names.add(schema.has("properties") || schema.has("additionalProperties") || schema.has("required")
                        ? "object" : schema.has("items") ? "array" : "any");
            } else if (declared.isArray()) {
                declared.forEach(name -> names.add(name.asString()));
            } else {
                names.add(declared.asString());
            }
            List<String> types = new ArrayList<>();
            for (String name : names) {
                types.add(single(name, schema, indent));
            }
            type = String.join(" | ", types);
        }
        if (schema.path("nullable").asBoolean(false) && !type.endsWith("| null") && !type.equals("null")) {
            type = type + " | null";
        }
        return type;
    }

    private static String single(String name, JsonNode schema, String indent) {
        return switch (name) {
            case "object" -> object(schema, indent);
            case "array" -> {
                JsonNode items = schema.get("items");
                String item = items == null ? "any" : withInlineComment(items, indent, true);
                yield item + "[]";
            }
            default -> name;
        };
    }

    private static String object(JsonNode schema, String indent) {
        if (!schema.has("properties") && !schema.has("required")
                && (!schema.has("additionalProperties") || schema.get("additionalProperties").isBoolean())) {
            return schema.path("additionalProperties").asBoolean(true) ? "object" : "{}";
        }
        List<Member> members = members(schema, indent + INDENT);
        boolean block = members.stream().anyMatch(member -> member.text().contains("\n") || !member.comment().isEmpty());
        if (!block) {
            return "{" + String.join(", ", members.stream().map(Member::text).toList()) + "}";
        }
        StringBuilder out = new StringBuilder("{\n");
        appendBlockMembers(out, members, indent + INDENT);
        return out.append(indent).append('}').toString();
    }

    /**
     * The type of a schema that is not a property (an array's items, an alternative), with its
     * comment as {@code /* ... *}{@code /}; in parentheses when it is an array item that would
     * otherwise not bind as one.
     */
    private static String withInlineComment(JsonNode schema, String indent, boolean arrayItem) {
        String type = type(schema, indent);
        String comment = comment(schema);
        if (comment.isEmpty()) {
            return arrayItem && isUnion(schema) ? "(" + type + ")" : type;
        }
        String commented = type + " /* " + comment.replace("*/", "* /") + " */";
        return arrayItem ? "(" + commented + ")" : commented;
    }

    /** True when the type of the schema is written as {@code A | B}, which needs parentheses before {@code []}. */
    private static boolean isUnion(JsonNode schema) {
        if (!schema.isObject()) {
            return false;
        }
        int alternatives = schema.has("const") ? 1
                : schema.has("enum") ? schema.get("enum").size()
                : schema.has("anyOf") ? schema.get("anyOf").size()
                : schema.has("oneOf") ? schema.get("oneOf").size()
                : schema.path("type").isArray() ? schema.get("type").size()
                : 1;
        boolean single = alternatives == 1 && !schema.has("anyOf") && !schema.has("oneOf");
        return alternatives > 1 || schema.path("nullable").asBoolean(false)
                || !single && isUnion(schema.path(schema.has("anyOf") ? "anyOf" : "oneOf").get(0));
    }

    /** The description, then each annotation as {@code key: value}, on one line. */
    private static String comment(JsonNode schema) {
        List<String> parts = new ArrayList<>();
        if (schema.hasNonNull("description") && !schema.get("description").asString().isBlank()) {
            parts.add(schema.get("description").asString().strip().replaceAll("\\s*\\n\\s*", " "));
        }
        for (String annotation : ANNOTATIONS) {
            if (schema.has(annotation)) {
                JsonNode value = schema.get(annotation);
                parts.add(annotation + ": " + (value.isString() && !annotation.equals("default")
                        && !annotation.equals("examples") ? value.asString() : compact(value)));
            }
        }
        return String.join("; ", parts);
    }

    /** True when every keyword of the schema and its subschemas is one this class renders faithfully. */
    static boolean renderable(JsonNode schema) {
        if (schema == null) {
            return false;
        }
        if (schema.isBoolean()) {
            return schema.asBoolean();
        }
        if (!schema.isObject()) {
            return false;
        }
        for (Iterator<String> it = schema.propertyNames().iterator(); it.hasNext(); ) {
            String keyword = it.next();
            if (!STRUCTURE.contains(keyword) && !ANNOTATIONS.contains(keyword) && !IGNORED.contains(keyword)) {
                return false;
            }
        }
        if (schema.has("anyOf") && schema.has("oneOf")
                || (schema.has("anyOf") || schema.has("oneOf")) && (schema.has("type") || schema.has("properties")
                        || schema.has("items") || schema.has("enum") || schema.has("const"))) {
            return false;   // a union that also constrains itself: TypeScript has no faithful form for it
        }
        JsonNode type = schema.get("type");
        if (type != null && !(type.isString() || type.isArray() && !type.isEmpty())) {
            return false;
        }
        JsonNode description = schema.get("description");
        if (description != null && !description.isString()) {
            return false;
        }
        JsonNode properties = schema.get("properties");
        if (properties != null) {
            if (!properties.isObject()) {
                return false;
            }
            for (JsonNode property : properties) {
                if (!renderable(property)) {
                    return false;
                }
            }
        }
        JsonNode required = schema.get("required");
        if (required != null && (!required.isArray() || !allTextual(required))) {
            return false;
        }
        JsonNode items = schema.get("items");
        if (items != null && !renderable(items)) {
            return false;   // a tuple (items as an array) or a schema we cannot show
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && !additional.isBoolean() && !renderable(additional)) {
            return false;
        }
        JsonNode enumeration = schema.get("enum");
        if (enumeration != null && (!enumeration.isArray() || enumeration.isEmpty())) {
            return false;
        }
        for (String union : List.of("anyOf", "oneOf")) {
            JsonNode alternatives = schema.get(union);
            if (alternatives != null) {
                if (!alternatives.isArray() || alternatives.isEmpty()) {
                    return false;
                }
                for (JsonNode alternative : alternatives) {
                    if (!renderable(alternative)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static boolean allTextual(JsonNode array) {
        for (JsonNode node : array) {
            if (!node.isString()) {
                return false;
            }
        }
        return true;
    }

    /** True when the arguments are an object: declared so, or with no type but object keywords. */
    private static boolean isObject(JsonNode schema) {
        if (!schema.isObject() || schema.has("anyOf") || schema.has("oneOf") || schema.has("enum")
                || schema.has("const") || schema.has("nullable")) {
            return false;
        }
        JsonNode type = schema.get("type");
        return type == null ? !schema.has("items") : type.isString() && type.asString().equals("object");
    }

    private static String key(String name) {
        return IDENTIFIER.matcher(name).matches() ? name : compact(JSON.getNodeFactory().stringNode(name));
    }

    private static String literal(JsonNode value) {
        return compact(value);
    }

    static String compact(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JacksonException e) {
            // A JsonNode always serialises; this is only here for the checked exception.
            throw new IllegalStateException("cannot write a schema as JSON", e);
        }
    }
}
