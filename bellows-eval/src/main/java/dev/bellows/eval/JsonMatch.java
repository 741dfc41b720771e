package dev.bellows.eval;

import tools.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON values compared as JSON, not as text: numbers by value ({@code 1}, {@code 1.0} and
 * {@code 1e0} are equal), objects without regard to key order.
 */
final class JsonMatch {

    private JsonMatch() {
    }

    /** Whether the two values are the same JSON value. */
    static boolean equal(JsonNode expected, JsonNode actual) {
        return matches(expected, actual, true);
    }

    /**
     * Whether {@code expected} is a JSON subset of {@code actual}: every field of an expected
     * object is in the actual one with a matching value (recursively); arrays match element by
     * element with the same length; other values are equal.
     */
    static boolean subset(JsonNode expected, JsonNode actual) {
        return matches(expected, actual, false);
    }

    /** {@code exact}: objects must have the same fields; otherwise the actual one may have more, at any depth. */
    private static boolean matches(JsonNode expected, JsonNode actual, boolean exact) {
        if (expected.isNumber() && actual.isNumber()) {
            if (whole(expected) && whole(actual)) {
                return expected.longValue() == actual.longValue();     // most arguments: no BigDecimal per check
            }
            return expected.decimalValue().compareTo(actual.decimalValue()) == 0;
        }
        if (expected.isContainer() && expected.getNodeType() == actual.getNodeType()) {
            if ((expected.isArray() || exact) ? expected.size() != actual.size() : expected.size() > actual.size()) {
                return false;
            }
            if (expected.isArray()) {
                for (int i = 0; i < expected.size(); i++) {
                    if (!matches(expected.get(i), actual.get(i), exact)) {
                        return false;
                    }
                }
                return true;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode other = actual.get(field.getKey());
                if (other == null || !matches(field.getValue(), other, exact)) {
                    return false;
                }
            }
            return true;
        }
        return expected.equals(actual);
    }

    /** An int or a long node: its value is its {@code longValue()}, exactly. */
    private static boolean whole(JsonNode number) {
        return number.isInt() || number.isLong() || number.isShort();
    }
}
