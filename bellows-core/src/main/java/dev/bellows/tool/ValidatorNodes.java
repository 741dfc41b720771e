package dev.bellows.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * Copies JSON trees between Bellows' Jackson (2, {@code com.fasterxml}) and the schema
 * validator's (Jackson 3, {@code tools.jackson}). A direct walk: no text in between, numbers
 * keep their exact kind ({@code 3} stays an int, {@code 2.50} a decimal), and nothing of
 * either library leaks into the other's API.
 */
final class ValidatorNodes {

    private static final tools.jackson.databind.node.JsonNodeFactory VALIDATOR_NODES =
            tools.jackson.databind.node.JsonNodeFactory.instance;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ValidatorNodes() {
    }

    /** The tree as the validator reads it; a new tree that shares nothing with the input. */
    static tools.jackson.databind.JsonNode toValidator(JsonNode node) {
        return switch (node.getNodeType()) {
            case OBJECT -> {
                tools.jackson.databind.node.ObjectNode object = VALIDATOR_NODES.objectNode();
                for (Map.Entry<String, JsonNode> field : node.properties()) {
                    object.set(field.getKey(), toValidator(field.getValue()));
                }
                yield object;
            }
            case ARRAY -> {
                tools.jackson.databind.node.ArrayNode array = VALIDATOR_NODES.arrayNode(node.size());
                node.forEach(item -> array.add(toValidator(item)));
                yield array;
            }
            case STRING -> VALIDATOR_NODES.stringNode(node.textValue());
            case BOOLEAN -> VALIDATOR_NODES.booleanNode(node.booleanValue());
            case NUMBER -> switch (node.numberType()) {
                case INT -> VALIDATOR_NODES.numberNode(node.intValue());
                case LONG -> VALIDATOR_NODES.numberNode(node.longValue());
                case BIG_INTEGER -> VALIDATOR_NODES.numberNode(node.bigIntegerValue());
                case FLOAT -> VALIDATOR_NODES.numberNode(node.floatValue());
                case DOUBLE -> VALIDATOR_NODES.numberNode(node.doubleValue());
                case BIG_DECIMAL -> VALIDATOR_NODES.numberNode(node.decimalValue());
            };
            // Binary and POJO nodes do not come out of JSON text; as text is how they would be written.
            case BINARY, POJO -> VALIDATOR_NODES.stringNode(node.asText());
            case NULL, MISSING -> VALIDATOR_NODES.nullNode();
        };
    }

    /** A validator's tree (a schema fragment in an error) in Bellows' Jackson. */
    static JsonNode fromValidator(tools.jackson.databind.JsonNode node) {
        if (node == null) {
            return NODES.missingNode();
        }
        if (node.isObject()) {
            ObjectNode object = NODES.objectNode();
            for (Map.Entry<String, tools.jackson.databind.JsonNode> field : node.properties()) {
                object.set(field.getKey(), fromValidator(field.getValue()));
            }
            return object;
        }
        if (node.isArray()) {
            ArrayNode array = NODES.arrayNode(node.size());
            node.values().forEach(item -> array.add(fromValidator(item)));
            return array;
        }
        if (node.isString()) {
            return NODES.textNode(node.stringValue());
        }
        if (node.isBoolean()) {
            return NODES.booleanNode(node.booleanValue());
        }
        if (node.isNumber()) {
            if (node.isIntegralNumber()) {
                return Coercions.integerNode(node.bigIntegerValue());
            }
            return node.isBigDecimal() ? NODES.numberNode(node.decimalValue()) : NODES.numberNode(node.doubleValue());
        }
        return NODES.nullNode();
    }
}
