package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/** Small helpers for JSON values in validation messages and comparisons. */
final class JsonValues {

    /** Long strings are cut in messages: the model wrote them and needs only to recognise them. */
    private static final int MAX_TEXT_IN_MESSAGE = 60;

    private JsonValues() {
    }

    /** A value as a message shows it: {@code "kelvin"}, {@code 3.5}, {@code null}, {@code an object}. */
    static String describe(JsonNode value) {
        if (value.isString()) {
            String text = value.stringValue(null);
            if (text.codePointCount(0, text.length()) > MAX_TEXT_IN_MESSAGE) {
                return new StringNode(text.substring(0, text.offsetByCodePoints(0, MAX_TEXT_IN_MESSAGE)) + "…").toString();
            }
            return value.toString();
        }
        if (value.isObject()) {
            return "an object";
        }
        if (value.isArray()) {
            return value.isEmpty() ? "an empty array" : "an array of " + value.size() + (value.size() == 1 ? " item" : " items");
        }
        return value.toString();
    }

    /** JSON equality, except that numbers are equal by value ({@code 1}, {@code 1.0}). */
    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }
}
