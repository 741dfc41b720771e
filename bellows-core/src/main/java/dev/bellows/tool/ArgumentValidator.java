package dev.bellows.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Checks a tool's arguments against its JSON Schema before the tool runs, so that a mistake
 * reaches the model as an error naming the field and what was expected, rather than as a
 * failure deep inside the tool.
 *
 * <p>It reads the schemas {@link JsonSchemas} generates and the usual hand-written and MCP
 * ones: {@code type} (one or several, {@code "null"} included), {@code properties},
 * {@code required}, {@code additionalProperties}, {@code patternProperties}, {@code items}
 * (and tuple {@code prefixItems}), {@code enum}, {@code const}, {@code minimum},
 * {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum} (numbers, or draft 4's
 * booleans), {@code multipleOf}, {@code minLength}, {@code maxLength}, {@code pattern} (a
 * Java regular expression that must be found somewhere in the string, as JSON Schema says),
 * {@code minItems}, {@code maxItems}, {@code uniqueItems}, {@code allOf}, {@code anyOf},
 * {@code oneOf} (taken as {@code anyOf}: the first schema that matches wins),
 * {@code nullable} (OpenAPI) and {@code $ref} to {@code #/$defs/...}, {@code #/definitions/...}
 * or any other pointer into the schema. Other keywords ({@code format}, {@code not},
 * {@code if}...) are ignored, as are remote {@code $ref}s and patterns Java cannot compile.
 *
 * <p>Slips models commonly make are forgiven where nothing is lost, and the returned copy has
 * them corrected: {@code "3"} or {@code 3.0} for an integer, {@code "2.5"} for a number,
 * {@code "true"} for a boolean, an integer or boolean for a string (but not a fraction, since
 * {@code 1.10} would come out as {@code "1.1"}), a single value for an array of one, JSON in
 * a string for an array or object, {@code "Celsius"} for the enum value {@code "celsius"} when
 * no other value differs only in case, and {@code null} for an optional property, which is
 * taken as absent. Nothing lossy: {@code "3.5"} for an integer or {@code "yes"} for a boolean
 * is an error.
 *
 * <p>Every problem is reported, not just the first, so the model fixes them all in one retry.
 */
public final class ArgumentValidator {

    private ArgumentValidator() {
    }

    /**
     * The arguments, checked and with lossless coercions applied, as a new value (the input is
     * never changed).
     *
     * @throws InvalidArgumentsException listing every problem, for the model to read
     * @throws IllegalArgumentException  when the schema itself is broken (a {@code $ref} to
     *                                   nothing, or to itself without end)
     */
    public static JsonNode validate(ObjectNode schema, JsonNode arguments) throws InvalidArgumentsException {
        return validate(null, schema, arguments);
    }

    /**
     * As {@link #validate(ObjectNode, JsonNode)}, with the tool's name in the error message
     * ({@code invalid arguments for get_weather: ...}).
     *
     * @param toolName the tool's name, or {@code null} to leave it out
     */
    public static JsonNode validate(String toolName, ObjectNode schema, JsonNode arguments)
            throws InvalidArgumentsException {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(arguments, "arguments");
        SchemaCheck check = new SchemaCheck(schema);
        // One copy up front: the check builds new containers but shares leaves with its input.
        JsonNode result = check.check(schema, arguments.deepCopy(), "");
        if (!check.problems().isEmpty()) {
            throw new InvalidArgumentsException(toolName, check.problems(), SchemaSummary.of(schema));
        }
        return result;
    }
}
