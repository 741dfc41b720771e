package dev.bellows.eval;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.InvalidSchemaException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The built-in evaluators, one per {@code expect} key of a case (docs/eval.md): each factory
 * here makes the evaluator that key makes. All are thread-safe.
 */
public final class Evaluators {

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?");

    private Evaluators() {
    }

    /** {@code equals}: the answer, stripped of surrounding whitespace, is exactly {@code expected}. */
    public static Evaluator equalsTo(String expected) {
        Objects.requireNonNull(expected, "expected");
        return Evaluator.of("equals", run -> run.answer().strip().equals(expected.strip())
                ? Score.pass("equals", "the answer is " + quoted(expected))
                : Score.fail("equals", "expected " + quoted(expected) + ", got " + quoted(run.answer())));
    }

    /** {@code equals} with a JSON value: the answer, a typed result, is that JSON value (numbers by value, any key order). */
    public static Evaluator equalsJson(JsonNode expected) {
        JsonNode value = expected.deepCopy();
        return Evaluator.of("equals", run -> {
            Optional<JsonNode> answer = json(run.answer());
            return answer.isPresent() && JsonMatch.equal(value, answer.get())
                    ? Score.pass("equals", "the answer is " + value)
                    : Score.fail("equals", "expected " + value + ", got " + quoted(run.answer()));
        });
    }

    /** {@code contains}: the answer contains every one of {@code parts} (case-sensitive). */
    public static Evaluator contains(List<String> parts) {
        List<String> all = List.copyOf(parts);
        String passed = "the answer contains " + quotedAll(all);       // the same for every run that passes
        return Evaluator.of("contains", run -> {
            List<String> missing = new ArrayList<>(0);
            for (String part : all) {
                if (!run.answer().contains(part)) {
                    missing.add(part);
                }
            }
            return missing.isEmpty() ? Score.pass("contains", passed)
                    : Score.fail("contains", "the answer does not contain " + quotedAll(missing) + ": "
                    + quoted(run.answer()));
        });
    }

    /** {@code regex}: the pattern is found in the answer (Java syntax; anchor it with ^ and $ to match it whole). */
    public static Evaluator regex(String pattern) {
        Pattern compiled = Pattern.compile(pattern);
        return Evaluator.of("regex", run -> compiled.matcher(run.answer()).find()
                ? Score.pass("regex", "the answer matches /" + pattern + "/")
                : Score.fail("regex", "the answer does not match /" + pattern + "/: " + quoted(run.answer())));
    }

    /**
     * {@code schema}: the answer is a typed result (JSON) that the JSON Schema accepts, checked
     * by the validator tools' arguments are checked with (so with its lossless coercions).
     *
     * @throws InvalidSchemaException when the schema cannot be used
     */
    public static Evaluator schema(JsonNode schema) {
        ArgumentSchema compiled = ArgumentSchema.compile(schema);
        return Evaluator.of("schema", run -> {
            Optional<JsonNode> answer = json(run.answer());
            if (answer.isEmpty()) {
                return Score.fail("schema", "the answer is not JSON: " + quoted(run.answer()));
            }
            try {
                compiled.check(null, answer.get());
                return Score.pass("schema", "the answer matches the schema " + compiled.summary());
            } catch (InvalidArgumentsException e) {
                return Score.fail("schema", "the answer does not match the schema: " + e.getMessage());
            }
        });
    }

    /**
     * {@code numeric}: a number in the answer is within {@code tolerance} of {@code value}. The
     * number is read at {@code pointer} (a JSON Pointer into a typed result) when one is given,
     * else it is the answer when the answer is a number, else the first number in its text.
     */
    public static Evaluator numeric(double value, double tolerance, Optional<String> pointer) {
        Optional<JsonPointer> at = pointer.map(JsonPointer::compile);
        String wanted = value + " \u00b1 " + tolerance;
        return Evaluator.of("numeric", run -> {
            Optional<Double> found = number(run.answer(), at);
            if (found.isEmpty()) {
                return Score.fail("numeric", "no number " + pointer.map(p -> "at " + p + " ").orElse("")
                        + "in the answer: " + quoted(run.answer()));
            }
            double got = found.get();
            return Math.abs(got - value) <= tolerance ? Score.pass("numeric", got + " is within " + wanted)
                    : Score.fail("numeric", got + " is not within " + wanted);
        });
    }

    /** {@code tools}: the run's tool calls against an expected trajectory. */
    public static Evaluator tools(ToolTrajectory trajectory) {
        String expected = Objects.requireNonNull(trajectory, "trajectory").expectedText();     // the same for every run
        return Evaluator.of("tools", run -> trajectory.check(run.toolCalls(), expected));
    }

    /** {@code no_tool_errors}: no tool call of the run failed. */
    public static Evaluator noToolErrors() {
        return Evaluator.of("no_tool_errors", run -> {
            List<String> errors = run.toolErrors();
            return errors.isEmpty() ? Score.pass("no_tool_errors", "no tool call failed")
                    : Score.fail("no_tool_errors", errors.size() + " tool call(s) failed: " + cut(String.join("; ", errors)));
        });
    }

    /** {@code max_iterations}: the loop made at most {@code max} model calls and ended by itself. */
    public static Evaluator maxIterations(int max) {
        return Evaluator.of("max_iterations", run -> {
            boolean stopped = run.endReason().filter(r -> r == dev.bellows.tool.LoopEndReason.MAX_ITERATIONS).isPresent();
            return run.iterations() <= max && !stopped
                    ? Score.pass("max_iterations", run.iterations() + " iteration(s), at most " + max)
                    : Score.fail("max_iterations", run.iterations() + " iteration(s)" + (stopped ? ", stopped at the limit" : "")
                    + ", at most " + max + " allowed");
        });
    }

    /**
     * {@code max_cost}: what the run's tokens cost at the runner's prices is at most {@code max}
     * (in the prices' currency).
     */
    public static Evaluator maxCost(double max) {
        return Evaluator.of("max_cost", run -> {
            if (run.cost().isEmpty()) {
                return Score.fail("max_cost", "the run's cost is unknown (no prices given, a model it called has no"
                        + " price, or its tokens were not counted)");
            }
            double cost = run.cost().get();
            String figures = String.format(java.util.Locale.ROOT, "%.6f", cost) + ", at most "
                    + String.format(java.util.Locale.ROOT, "%.6f", max);
            return cost <= max ? Score.pass("max_cost", "cost " + figures) : Score.fail("max_cost", "cost " + figures + " allowed");
        });
    }

    /** {@code max_tokens}: the model's input and output tokens over the run, together, are at most {@code max}. */
    public static Evaluator maxTokens(long max) {
        return Evaluator.of("max_tokens", run -> {
            if (run.tokens().isEmpty()) {
                return Score.fail("max_tokens", "the run's token usage is unknown (the agent was built without the runner's probe)");
            }
            long used = run.tokens().get().totalTokens();
            return used <= max ? Score.pass("max_tokens", used + " tokens, at most " + max)
                    : Score.fail("max_tokens", used + " tokens, at most " + max + " allowed");
        });
    }

    /** {@code max_latency_ms}: the run took at most {@code max} milliseconds from start to end. */
    public static Evaluator maxLatencyMs(long max) {
        return Evaluator.of("max_latency_ms", run -> run.durationMs() <= max
                ? Score.pass("max_latency_ms", run.durationMs() + " ms, at most " + max)
                : Score.fail("max_latency_ms", run.durationMs() + " ms, at most " + max + " allowed"));
    }

    /**
     * {@code judge}: a model grades the answer against {@code rubric}; the run passes when the
     * score is at least {@code minScore}.
     */
    public static Evaluator judge(String rubric, double minScore) {
        Objects.requireNonNull(rubric, "rubric");
        if (!(minScore >= 0 && minScore <= 1)) {
            throw new IllegalArgumentException("min_score is in 0..1, got " + minScore);
        }
        return new JudgeEvaluator(rubric, minScore);
    }

    // --- the expect keys ---

    /** The factories of the built-in {@code expect} keys, in the order docs/eval.md lists them. */
    static Map<String, ExpectationFactory> builtIn() {
        Map<String, ExpectationFactory> keys = new LinkedHashMap<>();
        keys.put("equals", spec -> spec.isString() ? equalsTo(spec.asString())
                : spec.isContainer() || spec.isNumber() || spec.isBoolean() ? equalsJson(spec)
                : fail("must be a string, or the JSON value of a typed result"));
        keys.put("contains", spec -> contains(strings(spec)));
        keys.put("regex", spec -> {
            try {
                return regex(text(spec, ""));
            } catch (PatternSyntaxException e) {
                throw new ExpectationException("not a valid regular expression: " + e.getDescription());
            }
        });
        keys.put("schema", spec -> {
            if (!spec.isObject()) {
                throw new ExpectationException("must be a JSON Schema (an object)");
            }
            try {
                return schema(spec);
            } catch (InvalidSchemaException e) {
                throw new ExpectationException("not a usable JSON Schema: " + e.getMessage());
            }
        });
        keys.put("numeric", Evaluators::numericSpec);
        keys.put("tools", Evaluators::toolsSpec);
        keys.put("no_tool_errors", spec -> {
            if (!spec.isBoolean()) {
                throw new ExpectationException("must be true or false");
            }
            return spec.asBoolean() ? noToolErrors() : null;
        });
        keys.put("max_iterations", spec -> maxIterations((int) positive(spec, "", Integer.MAX_VALUE)));
        keys.put("max_tokens", spec -> maxTokens(positive(spec, "", Long.MAX_VALUE)));
        keys.put("max_cost", spec -> {
            if (!spec.isNumber() || !(spec.asDouble() >= 0) || Double.isInfinite(spec.asDouble())) {
                throw new ExpectationException("must be a number of at least 0 (in the prices' currency)");
            }
            return maxCost(spec.asDouble());
        });
        keys.put("max_latency_ms", spec -> maxLatencyMs(positive(spec, "", Long.MAX_VALUE)));
        keys.put("judge", spec -> {
            if (!spec.isObject()) {
                throw new ExpectationException("must be an object: {\"rubric\": TEXT, \"min_score\": 0..1}");
            }
            only(spec, "rubric", "min_score");
            String rubric = text(spec.get("rubric"), "rubric");
            double min = 0.5;
            if (spec.has("min_score")) {
                JsonNode m = spec.get("min_score");
                if (!m.isNumber() || !(m.asDouble() >= 0 && m.asDouble() <= 1)) {
                    throw new ExpectationException("min_score", "must be a number in 0..1, got " + m);
                }
                min = m.asDouble();
            }
            return judge(rubric, min);
        });
        return keys;
    }

    private static Evaluator numericSpec(JsonNode spec) throws ExpectationException {
        if (spec.isNumber()) {
            return numeric(spec.asDouble(), 0, Optional.empty());
        }
        if (!spec.isObject()) {
            throw new ExpectationException("must be a number or {\"value\": N, \"tolerance\": T, \"pointer\": \"/path\"}");
        }
        only(spec, "value", "tolerance", "pointer");
        if (!spec.path("value").isNumber()) {
            throw new ExpectationException("value", "must be a number");
        }
        double tolerance = 0;
        if (spec.has("tolerance")) {
            if (!spec.get("tolerance").isNumber() || spec.get("tolerance").asDouble() < 0) {
                throw new ExpectationException("tolerance", "must be a number of at least 0");
            }
            tolerance = spec.get("tolerance").asDouble();
        }
        Optional<String> pointer = Optional.empty();
        if (spec.has("pointer")) {
            String p = text(spec.get("pointer"), "pointer");
            try {
                JsonPointer.compile(p);
            } catch (IllegalArgumentException e) {
                throw new ExpectationException("pointer", "not a JSON Pointer (like /temperature): " + e.getMessage());
            }
            pointer = Optional.of(p);
        }
        return numeric(spec.get("value").asDouble(), tolerance, pointer);
    }

    private static Evaluator toolsSpec(JsonNode spec) throws ExpectationException {
        if (!spec.isObject()) {
            throw new ExpectationException("must be an object: {\"match\": ..., \"calls\": [...]}");
        }
        only(spec, "match", "calls", "arguments_match");
        ToolTrajectory.Match match = ToolTrajectory.Match.STRICT;
        if (spec.has("match")) {
            match = choice(spec.get("match"), "match", ToolTrajectory.Match.values());
        }
        ToolTrajectory.ArgumentsMatch arguments = ToolTrajectory.ArgumentsMatch.SUBSET;
        if (spec.has("arguments_match")) {
            arguments = choice(spec.get("arguments_match"), "arguments_match", ToolTrajectory.ArgumentsMatch.values());
        }
        JsonNode calls = spec.get("calls");
        if (calls == null || !calls.isArray()) {
            throw new ExpectationException("calls", "must be an array of {\"name\": TOOL, \"arguments\": {...}}");
        }
        List<ToolTrajectory.ExpectedCall> expected = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            String at = "calls[" + i + "]";
            if (call.isString()) {
                expected.add(new ToolTrajectory.ExpectedCall(call.asString(), Optional.empty()));
                continue;
            }
            if (!call.isObject()) {
                throw new ExpectationException(at, "must be a tool's name or {\"name\": TOOL, \"arguments\": {...}}");
            }
            for (var names = call.propertyNames().iterator(); names.hasNext(); ) {
                String name = names.next();
                if (!name.equals("name") && !name.equals("arguments")) {
                    throw new ExpectationException(at + "." + name, "unknown field (a call has name and arguments)");
                }
            }
            String name = text(call.get("name"), at + ".name");
            JsonNode args = call.get("arguments");
            if (args != null && !args.isObject()) {
                throw new ExpectationException(at + ".arguments", "must be an object");
            }
            expected.add(new ToolTrajectory.ExpectedCall(name, Optional.ofNullable(args)));
        }
        return tools(new ToolTrajectory(match, arguments, expected));
    }

    private static <E extends Enum<E>> E choice(JsonNode value, String field, E[] choices) throws ExpectationException {
        List<String> names = new ArrayList<>();
        for (E choice : choices) {
            String name = choice.name().toLowerCase(java.util.Locale.ROOT);
            names.add(name);
            if (value.isString() && value.asString().equals(name)) {
                return choice;
            }
        }
        throw new ExpectationException(field, "must be " + String.join(", ", names.subList(0, names.size() - 1))
                + " or " + names.getLast() + ", got " + value);
    }

    private static void only(JsonNode spec, String... fields) throws ExpectationException {
        List<String> known = List.of(fields);
        for (var names = spec.propertyNames().iterator(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new ExpectationException(name, "unknown field (known: " + String.join(", ", known) + ")");
            }
        }
    }

    private static String text(JsonNode value, String field) throws ExpectationException {
        if (value == null || !value.isString()) {
            throw new ExpectationException(field, value == null ? "missing (a string)" : "must be a string");
        }
        return value.asString();
    }

    private static List<String> strings(JsonNode spec) throws ExpectationException {
        if (spec.isString()) {
            return List.of(spec.asString());
        }
        if (!spec.isArray() || spec.isEmpty()) {
            throw new ExpectationException("must be a string or a non-empty array of strings");
        }
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < spec.size(); i++) {
            parts.add(text(spec.get(i), "[" + i + "]"));
        }
        return parts;
    }

    private static long positive(JsonNode spec, String field, long max) throws ExpectationException {
        if (!spec.canConvertToExactIntegral() || !spec.isNumber() || spec.asLong() < 1 || spec.asLong() > max) {
            throw new ExpectationException(field, "must be a whole number of at least 1, got " + spec);
        }
        return spec.asLong();
    }

    private static Evaluator fail(String problem) throws ExpectationException {
        throw new ExpectationException(problem);
    }

    // --- reading answers ---

    /** The answer as JSON, when it is JSON (a typed result); empty otherwise. */
    static Optional<JsonNode> json(String answer) {
        String text = answer.strip();
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(MAPPER.readTree(text));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    private static Optional<Double> number(String answer, Optional<JsonPointer> at) {
        Optional<JsonNode> json = json(answer);
        if (at.isPresent()) {
            JsonNode value = json.map(j -> j.at(at.get())).orElse(null);
            return value != null && value.isNumber() ? Optional.of(value.asDouble()) : Optional.empty();
        }
        if (json.isPresent() && json.get().isNumber()) {
            return Optional.of(json.get().asDouble());
        }
        Matcher first = NUMBER.matcher(answer);
        return first.find() ? Optional.of(Double.parseDouble(first.group())) : Optional.empty();
    }

    private static String quoted(String text) {
        return "\"" + cut(text) + "\"";
    }

    private static String quotedAll(List<String> parts) {
        return String.join(", ", parts.stream().map(Evaluators::quoted).toList());
    }

    private static String cut(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "\u2026";
    }
}
