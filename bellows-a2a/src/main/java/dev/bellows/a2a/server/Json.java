package dev.bellows.a2a.server;

import dev.bellows.json.internal.Jackson;
import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;

/** The mapper of the protocol's JSON: nulls left out, unknown fields ignored (the specification asks it). */
final class Json {
    static final ObjectMapper MAPPER = Jackson.JSON.rebuild()
            .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** Free-form members (google.protobuf.Struct and Value): their keys are the client's, never renamed. */
    private static final Set<String> FREE_FORM = Set.of("data", "metadata", "params", "header");

    private Json() {
    }

    /**
     * The request with its protobuf field names ({@code task_id}) as their JSON names
     * ({@code taskId}): ProtoJSON readers take both, and clients send either. The values of
     * free-form members are left as sent. Changes the given tree.
     */
    static JsonNode camelCase(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : new ArrayList<>(object.properties())) {
                String name = field.getKey();
                if (!FREE_FORM.contains(name)) {
                    camelCase(field.getValue());
                }
                if (name.indexOf('_') > 0) {
                    String camel = camel(name);
                    if (!object.has(camel)) {
                        object.set(camel, field.getValue());
                    }
                    object.remove(name);
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(Json::camelCase);
        }
        return node;
    }

    private static String camel(String snake) {
        StringBuilder out = new StringBuilder(snake.length());
        boolean upper = false;
        for (char c : snake.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }
}
