package dev.bellows.json.internal;

import java.util.Arrays;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;

/**
 * Reads one value from a parser into a frozen tree ({@link FrozenJson}), in one pass over the
 * tokens: the nodes Jackson's tree reader makes (integers as int, long or BigInteger nodes by
 * size; floats as doubles, or as exact decimals with their trailing zeros kept), without its
 * deserialization context and without a mutable tree to freeze afterwards. The containers'
 * children wait on one stack per read until their container ends. Nesting is bounded by the
 * parser's constraints; the parser's errors reach the caller as they are.
 *
 * <p><b>Not API.</b> One read per instance, one thread.
 */
public final class FrozenTreeReader {

    private final JsonParser parser;
    private final boolean exactFloats;
    private Object[] stack = new Object[16];
    private int size;

    private FrozenTreeReader(JsonParser parser, boolean exactFloats) {
        this.parser = parser;
        this.exactFloats = exactFloats;
    }

    /**
     * The value that starts at {@code first}, the parser's current token; the parser is left on
     * the value's last token.
     *
     * @param exactFloats floats as {@code BigDecimal} (Jackson's {@code USE_BIG_DECIMAL_FOR_FLOATS}
     *                    without stripping trailing zeros), else as doubles
     */
    public static JsonNode read(JsonParser parser, JsonToken first, boolean exactFloats) {
        return new FrozenTreeReader(parser, exactFloats).value(first);
    }

    /**
     * The text's one value as {@link Jackson#JSON}'s {@code readTree} reads it (floats as
     * doubles), frozen; null when the text is not exactly one valid value (nothing, trailing
     * text, an error), for the caller to let {@code readTree} itself give its value or its error.
     */
    public static JsonNode readWhole(String text) {
        try (JsonParser parser = Jackson.JSON.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return null;
            }
            JsonNode value = read(parser, first, false);
            return parser.nextToken() == null ? value : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private JsonNode value(JsonToken token) {
        return switch (token) {
            case START_OBJECT -> object();
            case START_ARRAY -> array();
            case VALUE_STRING -> Jackson.NODES.stringNode(parser.getString());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> Jackson.NODES.numberNode(parser.getIntValue());
                case LONG -> Jackson.NODES.numberNode(parser.getLongValue());
                default -> Jackson.NODES.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> exactFloats
                    ? Jackson.NODES.numberNode(parser.getDecimalValue())
                    : Jackson.NODES.numberNode(parser.getDoubleValue());
            case VALUE_TRUE -> Jackson.NODES.booleanNode(true);
            case VALUE_FALSE -> Jackson.NODES.booleanNode(false);
            case VALUE_NULL -> Jackson.NODES.nullNode();
            default -> throw new IllegalStateException("unexpected token " + token);
        };
    }

    @SuppressWarnings("unchecked")
    private JsonNode object() {
        int from = size;
        for (String name = parser.nextName(); name != null; name = parser.nextName()) {
            push(Map.entry(name, value(parser.nextToken())));
        }
        Map.Entry<String, JsonNode>[] entries = new Map.Entry[size - from];
        System.arraycopy(stack, from, entries, 0, entries.length);
        Arrays.fill(stack, from, size, null);
        size = from;
        return FrozenJson.object(entries);
    }

    private JsonNode array() {
        int from = size;
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            push(value(token));
        }
        JsonNode[] items = new JsonNode[size - from];
        System.arraycopy(stack, from, items, 0, items.length);
        Arrays.fill(stack, from, size, null);
        size = from;
        return FrozenJson.array(items);
    }

    private void push(Object child) {
        if (size == stack.length) {
            stack = Arrays.copyOf(stack, size * 2);
        }
        stack[size++] = child;
    }
}
