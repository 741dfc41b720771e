package dev.bellows.tool;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.tool.internal.ArgumentValidator;
import dev.bellows.tool.internal.SchemaSummary;
import tools.jackson.databind.JsonNode;
import com.networknt.schema.SpecificationVersion;
import java.util.List;
import java.util.Objects;

/**
 * A tool's argument schema, compiled once and then used for every call: checks the model's
 * arguments, forgives its lossless slips and says what is wrong in words a model reads.
 * Immutable and safe to share between threads (parallel tool calls).
 *
 * <p>The checking is done by a complete JSON Schema validator (networknt
 * json-schema-validator): 2020-12 when the schema does not name its version, and draft-04,
 * -06, -07 and 2019-09 by their {@code $schema}. Every keyword counts, {@code not},
 * {@code if}/{@code then}/{@code else}, {@code dependentRequired}, {@code contains} and
 * {@code $ref}s included. {@code format} is checked for {@code date-time}, {@code date},
 * {@code time}, {@code duration}, {@code email}, {@code uuid}, {@code uri}, {@code ipv4} and
 * {@code ipv6}, and only described for the others. Nothing is fetched: a {@code $ref} to
 * another document accepts anything. OpenAPI's {@code nullable} and draft 4's boolean
 * {@code exclusiveMinimum}/{@code exclusiveMaximum} are read as their writers mean them.
 *
 * <p>On top of the validator, as before: the lossless coercions of {@link ArgumentValidator},
 * every problem with its path, and the expected shape in one line ({@link SchemaSummary}).
 *
 * <pre>{@code
 * ArgumentSchema arguments = ArgumentSchema.compile(tool.inputSchema()); // once, at registration
 * JsonNode checked = arguments.check(tool.name(), call.arguments());     // every call
 * }</pre>
 */
public final class ArgumentSchema {

    private final SchemaCompiler.Compiled compiled;
    private final String summary;
    private final PlainSchema plain;        // the quick yes for a plain object schema, or null

    private ArgumentSchema(SchemaCompiler.Compiled compiled, String summary) {
        this.compiled = compiled;
        this.summary = summary;
        this.plain = PlainSchema.of(compiled.source());
    }

    /**
     * Compiles a schema (a JSON object); the schema given is not kept or changed.
     *
     * @throws InvalidSchemaException when the schema cannot be used (not an object included),
     *                                saying where and why
     */
    public static ArgumentSchema compile(JsonNode schema) {
        Objects.requireNonNull(schema, "schema");
        if (!schema.isObject()) {
            throw new InvalidSchemaException("the tool's JSON Schema must be a JSON object, not " + schema.getNodeType());
        }
        SchemaCompiler.Compiled compiled = SchemaCompiler.compile(schema);
        return new ArgumentSchema(compiled, SchemaSummary.of(compiled.source()));
    }

    /**
     * As {@link #check}, for a caller that only reads the result: the arguments themselves,
     * not a copy, when the schema takes them as they are (nothing to coerce).
     */
    JsonNode checkForReading(String toolName, JsonNode arguments) throws InvalidArgumentsException {
        Objects.requireNonNull(arguments, "arguments");
        if (plain != null && plain.accepts(arguments)) {
            return arguments;
        }
        return check(toolName, arguments);
    }

    /**
     * The arguments, checked, with lossless coercions applied, as a new value (the input is
     * never changed); frozen arguments that need no coercion are returned as they are, since
     * nothing can change them.
     *
     * @param toolName the tool's name for the message, or {@code null} to leave it out
     * @throws InvalidArgumentsException listing every problem, for the model to read
     */
    public JsonNode check(String toolName, JsonNode arguments) throws InvalidArgumentsException {
        Objects.requireNonNull(arguments, "arguments");
        if (plain != null && plain.accepts(arguments)) {
            // what the validator would say, without its copies and error lists
            return FrozenJson.isFrozen(arguments) ? arguments : arguments.deepCopy();
        }
        Coercer.Outcome outcome = Coercer.check(compiled.schema(), arguments.deepCopy());
        if (outcome.errors().isEmpty()) {
            return outcome.value();
        }
        List<ArgumentProblem> problems = ProblemReport.of(outcome.errors(), outcome.value(), compiled.source());
        if (problems.isEmpty()) {
            // Every error was one the report folds into another; say at least that much.
            problems = List.of(new ArgumentProblem(ArgumentProblem.ROOT, "does not match the schema"));
        }
        throw new InvalidArgumentsException(toolName, problems, summary);
    }

    /** The expected arguments in one line, as error messages end: {@code {"city": string, "unit"?: ...}}. */
    public String summary() {
        return summary;
    }

    /** The JSON Schema version the schema is read as: {@code JSON Schema 2020-12}, {@code JSON Schema draft-07}... */
    public String version() {
        return SchemaCompiler.versionName(compiled.version());
    }

    /** True when this was compiled as the given version; for tests. */
    boolean isVersion(SpecificationVersion version) {
        return compiled.version() == version;
    }
}
