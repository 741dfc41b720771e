package dev.bellows.stream;

import dev.bellows.stream.internal.ParameterSchemas;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The JSON Schemas of the tools' parameters, by tool name. Dialects whose tool calls write
 * each parameter as text (qwen3_coder, glm45, minimax_m2) use them to type the values:
 * numbers, booleans, objects and arrays when the schema says so, strings otherwise. Their names
 * are also the catalog that Llama 3's bare JSON calls are checked against: an object whose
 * first member names one of these tools and whose next key is {@code "parameters"} (or
 * {@code "arguments"}) is a call from there on (with no schemas, any name counts).
 *
 * <pre>{@code
 * ToolSchemas schemas = ToolSchemas.fromJson(new ObjectMapper().readTree(
 *         "[{\"name\": \"add\", \"parameters\": {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}}}]"));
 * }</pre>
 */
public final class ToolSchemas {

    private static final ToolSchemas NONE = new ToolSchemas(ParameterSchemas.NONE);

    private final ParameterSchemas parameters;

    private ToolSchemas(ParameterSchemas parameters) {
        this.parameters = parameters;
    }

    /** No schemas: every text parameter is a string. */
    public static ToolSchemas none() {
        return NONE;
    }

    /** The parameters schema of each tool, by name (the map is copied; the nodes are deep-copied). */
    public static ToolSchemas of(Map<String, ? extends JsonNode> parametersByTool) {
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        parametersByTool.forEach((name, schema) -> copy.put(Objects.requireNonNull(name, "tool name"),
                Objects.requireNonNull(schema, "schema of " + name).deepCopy()));
        return new ToolSchemas(new ParameterSchemas(copy));
    }

    /**
     * Reads a JSON list of tools, each {@code {"name": ..., "parameters": {...}}} or in the
     * OpenAI form {@code {"type": "function", "function": {"name": ..., "parameters": {...}}}}.
     *
     * @throws IllegalArgumentException saying which entry is wrong and how
     */
    public static ToolSchemas fromJson(JsonNode tools) {
        if (tools == null || !tools.isArray()) {
            throw new IllegalArgumentException("the tools must be a JSON list like "
                    + "[{\"name\": \"add\", \"parameters\": {\"type\": \"object\", \"properties\": {...}}}]");
        }
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (int i = 0; i < tools.size(); i++) {
            JsonNode tool = tools.get(i);
            if (tool.has("function") && tool.get("function").isObject()) {
                tool = tool.get("function");
            }
            JsonNode name = tool.get("name");
            if (name == null || !name.isString() || name.stringValue(null).isEmpty()) {
                throw new IllegalArgumentException("tool " + (i + 1) + " of the list has no \"name\": give each tool"
                        + " a non-empty \"name\" and its \"parameters\" schema");
            }
            JsonNode schema = tool.get("parameters");
            if (schema == null || schema.isNull()) {
                schema = JsonNodeFactory.instance.objectNode();
            } else if (!schema.isObject()) {
                throw new IllegalArgumentException("tool '" + name.stringValue(null) + "': \"parameters\" must be a JSON"
                        + " Schema object");
            }
            byName.put(name.stringValue(null), schema);
        }
        return of(byName);
    }

    public boolean isEmpty() {
        return parameters.isEmpty();
    }

    /** What the decoders read of these schemas. */
    ParameterSchemas parameters() {
        return parameters;
    }

    @Override
    public String toString() {
        return "ToolSchemas" + parameters.tools();
    }
}
