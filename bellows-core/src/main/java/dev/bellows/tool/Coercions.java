package dev.bellows.tool;

import tools.jackson.databind.ObjectReader;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.StringNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The JSON types of JSON Schema, and the lossless conversions between them that forgive the
 * slips models commonly make. A conversion is allowed only when exactly one value could have
 * been meant and nothing the model wrote is lost:
 * <ul>
 *   <li>to {@code integer}: a string holding an integer ({@code "3"}), or a number or string
 *       whose value is integral ({@code 3.0}, {@code "3.0"}, {@code 3e2});</li>
 *   <li>to {@code number}: a string holding a JSON number ({@code "2.5"});</li>
 *   <li>to {@code boolean}: {@code "true"} or {@code "false"}, in any case;</li>
 *   <li>to {@code string}: an integer or a boolean, whose text is what the model wrote. Not a
 *       fraction: {@code 1.10} reads as {@code 1.1}, which loses what a version number meant;</li>
 *   <li>to {@code array}: a string holding a JSON array, otherwise any single value, which
 *       becomes a one-element array;</li>
 *   <li>to {@code object}: a string holding a JSON object.</li>
 * </ul>
 * Refused: {@code "3.5"} for an integer, {@code "yes"} or {@code 1} for a boolean, numbers
 * with leading zeros or in other notations ({@code "007"}, {@code "0x1F"}), and anything to
 * {@code null}.
 */
final class Coercions {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    // Thread-safe once configured; parsing is all it does. Trailing text means it was not JSON.
    private static final ObjectReader JSON = Jackson.JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    // JSON's own number syntax, so that only text a JSON number could have been is read as one.
    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?");

    // Beyond this many integer digits a value is not an argument but an attack on toBigInteger.
    private static final int MAX_INTEGER_DIGITS = 1000;

    private Coercions() {
    }

    /** True when the value is of the JSON Schema type; an unknown type name matches anything. */
    static boolean matches(String type, JsonNode value) {
        return switch (type) {
            case "string" -> value.isString();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "null" -> value.isNull();
            default -> true;
        };
    }

    /** The value converted to the type, when that loses nothing; empty otherwise. */
    static Optional<JsonNode> coerce(String type, JsonNode value) {
        return switch (type) {
            case "integer" -> number(value).flatMap(Coercions::integral).map(Coercions::integerNode);
            case "number" -> value.isString() ? number(value).map(Coercions::numberNode) : Optional.empty();
            case "boolean" -> bool(value);
            case "string" -> value.isIntegralNumber() || value.isBoolean()
                    ? Optional.of(StringNode.valueOf(value.asString())) : Optional.empty();
            case "array" -> array(value);
            case "object" -> parsed(value, '{').filter(JsonNode::isObject);
            default -> Optional.empty();
        };
    }

    private static Optional<BigDecimal> number(JsonNode value) {
        if (value.isNumber()) {
            if ((value.isDouble() || value.isFloat()) && !Double.isFinite(value.doubleValue())) {
                return Optional.empty();
            }
            return Optional.of(value.decimalValue());
        }
        if (value.isString() && NUMBER.matcher(value.stringValue(null)).matches()) {
            BigDecimal number = new BigDecimal(value.stringValue(null));
            return number.precision() - number.scale() > MAX_INTEGER_DIGITS ? Optional.empty() : Optional.of(number);
        }
        return Optional.empty();
    }

    private static Optional<BigInteger> integral(BigDecimal number) {
        if (number.signum() == 0) {
            return Optional.of(BigInteger.ZERO);
        }
        BigDecimal stripped = number.stripTrailingZeros();
        return stripped.scale() <= 0 ? Optional.of(stripped.toBigIntegerExact()) : Optional.empty();
    }

    /** The smallest node that holds it, so that what binds it sees an ordinary int where it can. */
    static JsonNode integerNode(BigInteger value) {
        if (value.bitLength() < Integer.SIZE) {
            return NODES.numberNode(value.intValue());
        }
        if (value.bitLength() < Long.SIZE) {
            return NODES.numberNode(value.longValue());
        }
        return NODES.numberNode(value);
    }

    private static JsonNode numberNode(BigDecimal value) {
        // A decimal node keeps every digit the model wrote; a double would round "0.1" once more.
        return integral(value).map(Coercions::integerNode).orElseGet(() -> NODES.numberNode(value));
    }

    private static Optional<JsonNode> bool(JsonNode value) {
        if (value.isString()) {
            if (value.stringValue(null).equalsIgnoreCase("true")) {
                return Optional.of(NODES.booleanNode(true));
            }
            if (value.stringValue(null).equalsIgnoreCase("false")) {
                return Optional.of(NODES.booleanNode(false));
            }
        }
        return Optional.empty();
    }

    private static Optional<JsonNode> array(JsonNode value) {
        if (value.isNull() || value.isMissingNode()) {
            return Optional.empty();
        }
        Optional<JsonNode> parsed = parsed(value, '[').filter(JsonNode::isArray);
        return parsed.isPresent() ? parsed : Optional.of(NODES.arrayNode().add(value));
    }

    /** JSON that the model put in a string by mistake ({@code "[1, 2]"}), parsed. */
    private static Optional<JsonNode> parsed(JsonNode value, char opening) {
        if (!value.isString() || !value.stringValue(null).strip().startsWith(String.valueOf(opening))) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(value.stringValue(null)));
        } catch (JacksonException notJson) {
            return Optional.empty();
        }
    }
}
