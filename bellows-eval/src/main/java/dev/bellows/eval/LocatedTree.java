package dev.bellows.eval;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A JSON (or YAML) value read token by token, with the line each of its values starts on, so
 * that a problem found later in the value can name the line of the field it is about, not
 * only the line the case starts on.
 */
final class LocatedTree {

    private final JsonNode value;
    private final Map<String, Integer> lines;
    private final int lineOffset;

    private LocatedTree(JsonNode value, Map<String, Integer> lines, int lineOffset) {
        this.value = value;
        this.lines = lines;
        this.lineOffset = lineOffset;
    }

    /**
     * Reads the value the parser is at (its current token must be the value's first).
     *
     * @param lineOffset added to the parser's line numbers (a JSONL line parsed on its own)
     */
    static LocatedTree read(JsonParser parser, int lineOffset) throws IOException {
        Map<String, Integer> lines = new HashMap<>();
        JsonNode value = value(parser, JsonPointer.empty(), lines);
        return new LocatedTree(value, lines, lineOffset);
    }

    /**
     * Reads the value the parser is at, all of it on one line (a JSONL case): every value's line
     * is that line, so none is recorded (building each value's pointer cost more than the parse).
     *
     * @param lineOffset added to the line, 1
     */
    static LocatedTree readOneLine(JsonParser parser, int lineOffset) throws IOException {
        return new LocatedTree(value(parser, null, null), Map.of(), lineOffset);
    }

    JsonNode value() {
        return value;
    }

    /** The line of the value at {@code pointer}, else of its nearest enclosing value that has one. */
    int line(JsonPointer pointer) {
        for (JsonPointer at = pointer; at != null; at = at.head()) {
            Integer line = lines.get(at.toString());
            if (line != null) {
                return line + lineOffset;
            }
        }
        return lines.getOrDefault("", 1) + lineOffset;
    }

    /** {@code lines} null: no line recorded (nor {@code at} known). */
    private static JsonNode value(JsonParser parser, JsonPointer at, Map<String, Integer> lines) throws IOException {
        // a field's line is its name's (set by the caller), where a person looks for it
        if (lines != null) {
            lines.putIfAbsent(at.toString(), parser.currentTokenLocation().getLineNr());
        }
        JsonToken token = parser.currentToken();
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        switch (token) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                    String name = parser.currentName();
                    JsonPointer field = lines == null ? null : at.appendProperty(name);
                    if (lines != null) {
                        lines.put(field.toString(), parser.currentTokenLocation().getLineNr());
                    }
                    parser.nextToken();
                    object.set(name, value(parser, field, lines));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                int index = 0;
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(value(parser, lines == null ? null : at.appendIndex(index), lines));
                    index++;
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.stringNode(parser.getString());
            }
            case VALUE_NUMBER_INT -> {
                return switch (parser.getNumberType()) {
                    case INT -> nodes.numberNode(parser.getIntValue());
                    case LONG -> nodes.numberNode(parser.getLongValue());
                    default -> nodes.numberNode(parser.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return nodes.numberNode(parser.getDoubleValue());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return nodes.booleanNode(token == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return nodes.nullNode();
            }
            default -> throw new IOException("unexpected " + token);
        }
    }
}
