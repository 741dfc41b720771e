package dev.bellows.prompt.internal;

import dev.bellows.json.internal.Jackson;
import dev.bellows.prompt.ToolCallFormat;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.ToolCall;
import java.util.Iterator;
import java.util.Map;

/**
 * The one example call the system prompt shows, written in the taught format: a call of a
 * tool the model really has, with its required arguments made up from its schema (a const, the
 * first enum value, the default or first example where there is one, else a value of the type
 * at its minimum), so the parser always reads the example and the tool accepts it unless the
 * schema has constraints such as a pattern or a format.
 */
public final class ExampleCall {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final YAMLMapper YAML = Jackson.YAML;
    /** Nesting beyond this is not followed: the example shows the form, not every level. */
    private static final int MAX_DEPTH = 4;

    private ExampleCall() {
    }

    /**
     * The block for {@code tool}: {@code server_name} is written only for a tool outside
     * server {@code local} (the parser's default).
     */
    public static String render(RegisteredTool tool, ToolCallFormat format, String toolTag) {
        String body = format == ToolCallFormat.JSON ? json(tool) : xml(tool);
        return "<" + toolTag + ">\n" + body + "\n</" + toolTag + ">";
    }

    /** The call as one compact JSON object. */
    public static String json(RegisteredTool tool) {
        return ToolSignature.compact(call(tool));
    }

    /** The call as a YAML mapping, quoted only where YAML needs it. */
    public static String yaml(RegisteredTool tool) {
        try {
            return YAML.writeValueAsString(call(tool)).stripTrailing();
        } catch (JacksonException e) {
            // A tree of plain values always serialises; this is only here for the checked exception.
            throw new IllegalStateException("cannot write the example call as YAML", e);
        }
    }

    /** The call as the elements of the XML form. */
    static String xml(RegisteredTool tool) {
        StringBuilder xml = new StringBuilder();
        if (!tool.serverName().equals(ToolCall.LOCAL_SERVER)) {
            xml.append("<server_name>").append(escape(tool.serverName())).append("</server_name>\n");
        }
        xml.append("<tool_name>").append(escape(tool.toolName())).append("</tool_name>\n<arguments>");
        arguments(tool.tool().inputSchema(), 0).properties()
                .forEach(field -> element(xml, field.getKey(), field.getValue()));
        return xml.append("</arguments>").toString();
    }

    private static ObjectNode call(RegisteredTool tool) {
        ObjectNode call = NODES.objectNode();
        if (!tool.serverName().equals(ToolCall.LOCAL_SERVER)) {
            call.put("server_name", tool.serverName());
        }
        call.put("tool_name", tool.toolName());
        call.set("arguments", arguments(tool.tool().inputSchema(), 0));
        return call;
    }

    /** A value the schema accepts: its const, first enum value, default or example, else one made up by type. */
    static JsonNode arguments(JsonNode schema, int depth) {
        if (schema == null || !schema.isObject()) {
            return NODES.objectNode();
        }
        JsonNode value = sample(schema, depth);
        return value.isObject() ? value : NODES.objectNode();
    }

    private static JsonNode sample(JsonNode schema, int depth) {
        if (schema == null || !schema.isObject()) {
            return NODES.stringNode("…");
        }
        if (schema.has("const")) {
            return schema.get("const");
        }
        if (schema.has("enum") && !schema.get("enum").isEmpty()) {
            return schema.get("enum").get(0);
        }
        if (schema.has("default")) {
            return schema.get("default");
        }
        if (schema.path("examples").isArray() && !schema.get("examples").isEmpty()) {
            return schema.get("examples").get(0);
        }
        for (String union : new String[] {"anyOf", "oneOf"}) {
            if (schema.path(union).isArray() && !schema.get(union).isEmpty()) {
                return sample(schema.get(union).get(0), depth);
            }
        }
        JsonNode type = schema.get("type");
        String name = type == null
                ? (schema.has("properties") ? "object" : schema.has("items") ? "array" : "string")
                : type.isArray() ? (type.isEmpty() ? "string" : type.get(0).asString()) : type.asString();
        return switch (name) {
            case "object" -> {
                ObjectNode object = NODES.objectNode();
                if (depth < MAX_DEPTH) {
                    JsonNode properties = schema.path("properties");
                    for (JsonNode required : schema.path("required")) {
                        object.set(required.asString(), sample(properties.get(required.asString()), depth + 1));
                    }
                }
                yield object;
            }
            case "array" -> {
                ArrayNode array = NODES.arrayNode();
                if (depth < MAX_DEPTH) {
                    array.add(sample(schema.get("items"), depth + 1));
                }
                yield array;
            }
            case "integer" -> schema.path("minimum").canConvertToLong()
                    ? NODES.numberNode(schema.get("minimum").asLong()) : NODES.numberNode(1);
            case "number" -> schema.path("minimum").isNumber() ? schema.get("minimum") : NODES.numberNode(1.5);
            case "boolean" -> NODES.booleanNode(true);
            case "null" -> NODES.nullNode();
            default -> NODES.stringNode("…");
        };
    }

    /** One argument as the XML form writes it: an element per key, repeated for array items, nested for objects. */
    private static void element(StringBuilder xml, String name, JsonNode value) {
        if (value.isArray()) {
            value.forEach(item -> element(xml, name, item));
            return;
        }
        xml.append('<').append(name).append('>');
        if (value.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = value.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                element(xml, field.getKey(), field.getValue());
            }
        } else if (!value.isNull()) {
            xml.append(escape(value.asString()));
        }
        xml.append("</").append(name).append('>');
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;");
    }
}
