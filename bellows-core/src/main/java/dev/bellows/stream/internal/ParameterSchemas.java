package dev.bellows.stream.internal;

import dev.bellows.stream.ToolSchemas;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.StringNode;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the decoders read from {@link ToolSchemas} (its public face): the JSON Schemas of the
 * tools' parameters, by tool name, to type the values of parameters written as text, and the
 * tools' names, the catalog bare calls are checked against. Immutable.
 */
public final class ParameterSchemas {

    /** No schemas: every text parameter is a string. */
    public static final ParameterSchemas NONE = new ParameterSchemas(Map.of());

    private final Map<String, JsonNode> parameters;

    /** The parameters schema of each tool, by name (the map is copied, the nodes shared: the caller's copies). */
    public ParameterSchemas(Map<String, JsonNode> parameters) {
        this.parameters = Map.copyOf(parameters);
    }

    public boolean isEmpty() {
        return parameters.isEmpty();
    }

    /** Whether {@code tool} is one of the tools these schemas describe (the catalog offered to the model). */
    public boolean offers(String tool) {
        return parameters.containsKey(tool);
    }

    /**
     * The value of one text parameter, typed by the schema of {@code tool}'s property
     * {@code parameter}: {@code null} (the word), integers, numbers, booleans, objects and
     * arrays are converted when the schema asks for them and the text is one; a schema that
     * allows a string and other types (a union) gets the other type when the text is one, the
     * text otherwise; a string, a parameter without schema, and text that does not convert stay
     * the text itself.
     */
    public JsonNode value(String tool, String parameter, String text) {
        JsonNode property = property(tool, parameter);
        if (property == null) {
            return StringNode.valueOf(text);
        }
        return typed(property, text);
    }

    /**
     * GLM's rule (vLLM's and llama.cpp's GLM parsers): as {@link #value}, except that a parameter
     * without schema is the JSON value its text is ({@code 42}, {@code true}, {@code [1]}; Python's
     * {@code True}, {@code False}, {@code None} too), and the text when it is not JSON.
     */
    public JsonNode glmValue(String tool, String parameter, String text) {
        JsonNode property = property(tool, parameter);
        if (property != null) {
            return typed(property, text);
        }
        String trimmed = ContentText.trim(text);
        switch (trimmed) {
            case "True" -> {
                return BooleanNode.TRUE;
            }
            case "False" -> {
                return BooleanNode.FALSE;
            }
            case "None" -> {
                return JsonNodeFactory.instance.nullNode();
            }
            default -> { }
        }
        if (!trimmed.isEmpty()) {
            try {
                return StrictJson.read(trimmed);
            } catch (SyntaxError notJson) {
                // the text, as written
            }
        }
        return StringNode.valueOf(text);
    }

    /**
     * The tool a call that does not name one must be meant for (Kimi's bare counter ids, as vLLM and
     * SGLang read them): the only tool, when {@code onlyToolCounts} and there is exactly one; else the
     * only tool whose parameters have every one of the call's argument names; else null.
     */
    public String toolFor(Iterable<String> argumentNames, boolean onlyToolCounts) {
        if (onlyToolCounts && parameters.size() == 1) {
            return parameters.keySet().iterator().next();
        }
        String found = null;
        for (Map.Entry<String, JsonNode> tool : parameters.entrySet()) {
            JsonNode properties = tool.getValue().path("properties");
            boolean all = true;
            boolean any = false;
            for (String name : argumentNames) {
                any = true;
                if (!properties.has(name)) {
                    all = false;
                    break;
                }
            }
            if (any && all) {
                if (found != null) {
                    return null; // two tools fit: guessing would call the wrong one
                }
                found = tool.getKey();
            }
        }
        return found;
    }

    /** The schema of one property of a tool's parameters, or null when there is none. */
    private JsonNode property(String tool, String parameter) {
        JsonNode schema = parameters.get(tool);
        JsonNode property = schema == null ? null : schema.path("properties").get(parameter);
        return property == null || !property.isObject() ? null : property;
    }

    private static JsonNode typed(JsonNode property, String text) {
        String trimmed = ContentText.trim(text);
        if (trimmed.equals("null") && allows(property, "null")) {
            return JsonNodeFactory.instance.nullNode();
        }
        boolean string = allows(property, "string") || (!property.has("type") && !property.has("anyOf"));
        if (string && !allowsOtherThanString(property)) {
            return StringNode.valueOf(text);
        }
        if (allows(property, "boolean")) {
            String lower = trimmed.toLowerCase(Locale.ROOT);
            if (lower.equals("true") || lower.equals("false")) {
                return BooleanNode.valueOf(lower.equals("true"));
            }
        }
        if (allows(property, "integer") || allows(property, "number")) {
            try {
                BigDecimal number = new BigDecimal(trimmed);
                // A whole number is written as one (3.0 -> 3), as vLLM's parsers convert it.
                if (number.stripTrailingZeros().scale() <= 0) {
                    return JsonNodeFactory.instance.numberNode(number.toBigIntegerExact());
                }
                if (allows(property, "number")) {
                    return JsonNodeFactory.instance.numberNode(number);
                }
            } catch (NumberFormatException | ArithmeticException notANumber) {
                // falls through: kept as text, the tool's own validation reports it
            }
        }
        if (allows(property, "object") || allows(property, "array")) {
            JsonNode value = structure(trimmed);
            if (value != null && ((value.isObject() && allows(property, "object"))
                    || (value.isArray() && allows(property, "array")))) {
                return value;
            }
        }
        return StringNode.valueOf(text);
    }

    /**
     * The JSON the text is; or, when it is JSON escaped once more ({@code [{\"id\": 1}]}, as GLM
     * models sometimes write it and SGLang reads it), the JSON it holds; else null.
     */
    private static JsonNode structure(String trimmed) {
        try {
            return StrictJson.read(trimmed);
        } catch (SyntaxError notJson) {
            if (!trimmed.contains("\\\"")) {
                return null;
            }
        }
        try {
            JsonNode unescaped = StrictJson.read("\"" + trimmed + "\"");
            return StrictJson.read(unescaped.stringValue(null));
        } catch (SyntaxError stillNotJson) {
            return null;
        }
    }

    /** Whether the schema allows some type besides a string (a union such as {@code ["string", "integer"]}). */
    private static boolean allowsOtherThanString(JsonNode property) {
        for (String type : new String[] {"integer", "number", "boolean", "object", "array"}) {
            if (allows(property, type)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the schema's {@code type} (a name or a list of names, or an {@code anyOf}) names
     * {@code type}. The loose names models' tool definitions use ({@code int}, {@code float},
     * {@code bool}, {@code dict}, {@code list}, ...) count too, as vLLM's parsers accept them.
     */
    private static boolean allows(JsonNode property, String type) {
        JsonNode declared = property.get("type");
        if (declared != null) {
            if (declared.isString()) {
                return sameType(declared.stringValue(null), type);
            }
            if (declared.isArray()) {
                for (JsonNode t : declared) {
                    if (t.isString() && sameType(t.stringValue(null), type)) {
                        return true;
                    }
                }
            }
            return false;
        }
        JsonNode anyOf = property.get("anyOf");
        if (anyOf != null && anyOf.isArray()) {
            for (JsonNode option : anyOf) {
                if (allows(option, type)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean sameType(String declared, String type) {
        String name = declared.strip().toLowerCase(Locale.ROOT);
        return switch (type) {
            case "integer" -> name.equals("integer") || name.equals("int") || name.equals("long");
            case "number" -> name.equals("number") || name.equals("float") || name.equals("double");
            case "boolean" -> name.equals("boolean") || name.equals("bool");
            case "string" -> name.equals("string") || name.equals("str") || name.equals("text");
            case "object" -> name.equals("object") || name.equals("dict");
            case "array" -> name.equals("array") || name.equals("list") || name.equals("arr");
            default -> name.equals(type);
        };
    }

    /** The tools' names. */
    public Set<String> tools() {
        return parameters.keySet();
    }
}
