package dev.bellows.mcp;

import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A server's question to the user (elicitation, form mode).
 *
 * @param serverName      the server asking
 * @param message         what it says to the user
 * @param requestedSchema the fields: a JSON Schema object of primitive properties (string,
 *                        number, integer, boolean, enums), each with {@code title},
 *                        {@code description}, {@code default} as the server gave them; frozen
 *                        (read-only; a copy unless frozen already), {@code {}} for null
 */
public record ElicitationRequest(String serverName, String message, JsonNode requestedSchema) {

    public ElicitationRequest {
        Objects.requireNonNull(serverName, "serverName");
        message = message == null ? "" : message;
        if (requestedSchema != null && !requestedSchema.isObject()) {
            throw new IllegalArgumentException("requestedSchema must be a JSON object, not " + requestedSchema.getNodeType());
        }
        requestedSchema = FrozenJson.freeze(requestedSchema == null ? ResultMapper.JSON.createObjectNode() : requestedSchema);
    }

    /**
     * One field of the form.
     *
     * @param schema the field's JSON Schema (an object), frozen (read-only; a copy unless frozen already)
     */
    public record Field(String name, JsonNode schema, boolean required) {

        public Field {
            Objects.requireNonNull(name, "name");
            schema = FrozenJson.freeze(Objects.requireNonNull(schema, "schema"));
        }

        /** {@code string}, {@code number}, {@code integer}, {@code boolean}; {@code string} when not said. */
        public String type() {
            return schema.path("type").asString("string");
        }

        /** The field's default, if it has one. */
        public Optional<JsonNode> defaultValue() {
            JsonNode value = schema.get("default");
            return value == null || value.isNull() ? Optional.empty() : Optional.of(value);     // frozen
        }

        /** The allowed values ({@code enum}, or the {@code const} of each {@code oneOf}); empty when free. */
        public List<String> choices() {
            List<String> out = new ArrayList<>();
            schema.path("enum").forEach(value -> out.add(value.asString()));
            if (out.isEmpty()) {
                schema.path("oneOf").forEach(option -> {
                    if (option.has("const")) {
                        out.add(option.get("const").asString());
                    }
                });
            }
            if (out.isEmpty() && schema.path("items").isObject()) {
                schema.path("items").path("enum").forEach(value -> out.add(value.asString()));
                schema.path("items").path("anyOf").forEach(option -> {
                    if (option.has("const")) {
                        out.add(option.get("const").asString());
                    }
                });
            }
            return out;
        }
    }

    /** The fields, in the schema's order. */
    public List<Field> fields() {
        Set<String> required = new HashSet<>();
        requestedSchema.path("required").forEach(name -> required.add(name.asString()));
        List<Field> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> property : requestedSchema.path("properties").properties()) {
            if (property.getValue().isObject()) {       // frozen already: shared, not copied
                fields.add(new Field(property.getKey(), property.getValue(), required.contains(property.getKey())));
            }
        }
        return fields;
    }

    /** Every field's default, a frozen object; empty when a required field has none. */
    public Optional<JsonNode> defaults() {
        ObjectNode content = ResultMapper.JSON.createObjectNode();
        for (Field field : fields()) {
            Optional<JsonNode> value = field.defaultValue();
            if (value.isPresent()) {
                content.set(field.name(), value.get());
            } else if (field.required()) {
                return Optional.empty();
            }
        }
        return Optional.of(FrozenJson.freeze(content));
    }

    /**
     * The content (a JSON object) with the default of each field it leaves out (SEP-1034): a new
     * object, frozen; {@code content} is not changed.
     */
    public JsonNode withDefaults(JsonNode content) {
        if (!content.isObject()) {
            throw new IllegalArgumentException("content must be a JSON object, not " + content.getNodeType());
        }
        ObjectNode out = (ObjectNode) content.deepCopy();
        for (Field field : fields()) {
            if (!out.has(field.name()) || out.get(field.name()).isNull()) {
                field.defaultValue().ifPresent(value -> out.set(field.name(), value));
            }
        }
        return FrozenJson.freeze(out);
    }
}
