package dev.bellows.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.InvalidArgumentsException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Checking one typical tool call's arguments against its schema: a file-editing tool of the
 * kind MCP servers offer (strings, an enum, a bounded integer, an array, a nested object, a
 * format), with arguments as a model writes them.
 *
 * <ul>
 *   <li>{@code compiled}: {@link ArgumentSchema#check} on the schema compiled once, as the
 *       registry and typed tools do on every call: valid arguments;</li>
 *   <li>{@code compiledCoerced}: the same with three slips to forgive ({@code "12"} for an
 *       integer, {@code "Append"} for {@code "append"}, one string for an array), which costs
 *       a validation per round of repairs.</li>
 * </ul>
 * The benchmarks use Bellows' API only: the static entry point that looked the compiled schema
 * up by its text ({@code staticValidate}, BENCHMARKS.md's old-versus-new line) is internal now.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ArgumentValidationBenchmark {

    private static final ObjectMapper JSON = JsonMapper.shared();

    static final String SCHEMA = """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "minLength": 1, "description": "File to edit"},
               "mode": {"type": "string", "enum": ["replace", "append", "insert"]},
               "line": {"type": "integer", "minimum": 1},
               "content": {"type": "string", "maxLength": 100000},
               "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
               "options": {"type": "object",
                           "properties": {"backup": {"type": "boolean"},
                                          "modified_after": {"type": "string", "format": "date-time"}},
                           "additionalProperties": false}},
             "required": ["path", "mode", "content"],
             "additionalProperties": false}""";

    static final String VALID = """
            {"path": "src/main/java/App.java", "mode": "append", "line": 12,
             "content": "public static void main(String[] args) {\\n    System.out.println(\\"hi\\");\\n}\\n",
             "tags": ["java", "example"], "options": {"backup": true, "modified_after": "2025-01-31T09:30:00Z"}}""";

    static final String SLIPS = """
            {"path": "src/main/java/App.java", "mode": "Append", "line": "12",
             "content": "public static void main(String[] args) {\\n    System.out.println(\\"hi\\");\\n}\\n",
             "tags": "java", "options": {"backup": true, "modified_after": "2025-01-31T09:30:00Z"}}""";

    /** The schema and arguments, parsed once (not measured). */
    @State(Scope.Benchmark)
    public static class Input {
        ObjectNode schema;
        ArgumentSchema compiled;
        JsonNode valid;
        JsonNode slips;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            schema = (ObjectNode) JSON.readTree(SCHEMA);
            compiled = ArgumentSchema.compile(schema);
            valid = JSON.readTree(VALID);
            slips = JSON.readTree(SLIPS);
            // Both must pass, or the benchmark measures exceptions.
            compiled.check("edit_file", valid);
            JsonNode fixed = compiled.check("edit_file", slips);
            if (!fixed.get("line").isInt() || !fixed.get("tags").isArray()) {
                throw new IllegalStateException("the slips were not forgiven: " + fixed);
            }
        }
    }

    @Benchmark
    public JsonNode compiled(Input input) throws InvalidArgumentsException {
        return input.compiled.check("edit_file", input.valid);
    }

    @Benchmark
    public JsonNode compiledCoerced(Input input) throws InvalidArgumentsException {
        return input.compiled.check("edit_file", input.slips);
    }
}
