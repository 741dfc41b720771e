package dev.bellows.tool.internal;

import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.InvalidSchemaException;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.TypedTool;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a tool's arguments against its JSON Schema before the tool runs, so that a mistake
 * reaches the model as an error naming the field and what was expected, rather than as a
 * failure deep inside the tool.
 *
 * <p>The checking is {@link ArgumentSchema}'s: a complete JSON Schema validator (2020-12 by
 * default, draft-07 and the others by {@code $schema}), where every keyword counts. Code that
 * checks the same schema many times compiles it once with {@link ArgumentSchema#compile} (the
 * {@link ToolRegistry} and {@link TypedTool} do); this class keeps the last schemas it
 * compiled, by content, so that calling it again with the same schema does not compile anew.
 *
 * <p>Slips models commonly make are forgiven where nothing is lost, and the returned copy has
 * them corrected: {@code "3"} or {@code 3.0} for an integer, {@code "2.5"} for a number,
 * {@code "true"} for a boolean, an integer or boolean for a string (but not a fraction, since
 * {@code 1.10} would come out as {@code "1.1"}), a single value for an array of one, JSON in
 * a string for an array or object, {@code "Celsius"} for the enum value {@code "celsius"} when
 * no other value differs only in case, and {@code null} for an optional property, which is
 * taken as absent. Nothing lossy: {@code "3.5"} for an integer or {@code "yes"} for a boolean
 * is an error. A coerced value must pass the whole schema like any other.
 *
 * <p>Every problem is reported, not just the first, so the model fixes them all in one retry.
 */
public final class ArgumentValidator {

    // Compiling costs far more than checking: schemas seen lately are kept, by content (a
    // caller's ObjectNode may change, so never by identity). Bounded, and guarded by itself.
    private static final int CACHED_SCHEMAS = 256;
    private static final Map<String, ArgumentSchema> COMPILED = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArgumentSchema> eldest) {
            return size() > CACHED_SCHEMAS;
        }
    };

    private ArgumentValidator() {
    }

    /**
     * The arguments, checked and with lossless coercions applied, as a new value (the input is
     * never changed).
     *
     * @throws InvalidArgumentsException listing every problem, for the model to read
     * @throws InvalidSchemaException    when the schema itself is broken (a {@code $ref} to
     *                                   nothing, or to itself without end, a keyword with a
     *                                   value JSON Schema does not allow)
     */
    public static JsonNode validate(JsonNode schema, JsonNode arguments) throws InvalidArgumentsException {
        return validate(null, schema, arguments);
    }

    /**
     * As {@link #validate(JsonNode, JsonNode)}, with the tool's name in the error message
     * ({@code invalid arguments for get_weather: ...}).
     *
     * @param toolName the tool's name, or {@code null} to leave it out
     */
    public static JsonNode validate(String toolName, JsonNode schema, JsonNode arguments)
            throws InvalidArgumentsException {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(arguments, "arguments");
        return compiled(schema).check(toolName, arguments);
    }

    /** The schema compiled, from the cache when it was seen lately. */
    public static ArgumentSchema compiled(JsonNode schema) {
        String key = schema.toString();
        synchronized (COMPILED) {
            ArgumentSchema cached = COMPILED.get(key);
            if (cached != null) {
                return cached;
            }
        }
        ArgumentSchema compiled = ArgumentSchema.compile(schema); // outside the lock: it may take a while
        synchronized (COMPILED) {
            COMPILED.putIfAbsent(key, compiled);
        }
        return compiled;
    }
}
