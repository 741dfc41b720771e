package dev.bellows.tool;

import dev.bellows.tool.internal.SchemaSummary;
import dev.bellows.tool.internal.SchemaTypes;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The validator's errors as problems a model reads: each at its path ({@code steps[2].status}),
 * in words that say what was expected and what came ({@code expected integer, got "abc"}),
 * never in the validator's own terms. Also decides what is worth saying:
 * <ul>
 *   <li>a value of the wrong type gets that one problem, not also "not in the enum";</li>
 *   <li>when no choice of an {@code anyOf}/{@code oneOf} matches, the problems of the choice
 *       whose type did match (the model's evident intent) are reported, else one line that
 *       lists the choices;</li>
 *   <li>problems come in the order of the arguments, a missing property after its siblings.</li>
 * </ul>
 */
final class ProblemReport {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final int MAX_SCHEMA_TEXT = 120;

    /** Keywords followed in an evaluation path by a name or index that is not a keyword. */
    private static final Set<String> NAMED = Set.of("properties", "patternProperties", "$defs", "definitions",
            "dependentSchemas", "dependencies", "allOf", "anyOf", "oneOf", "prefixItems");
    /** Keywords whose schema applies to a value one step down (a property or an item). */
    private static final Set<String> STEPPING = Set.of("properties", "patternProperties", "additionalProperties",
            "unevaluatedProperties", "items", "prefixItems", "additionalItems", "unevaluatedItems", "contains");

    private final JsonNode value;
    private final JsonNode schemaRoot;
    private final Map<InstancePath, int[]> positions = new HashMap<>();

    private ProblemReport(JsonNode value, JsonNode schemaRoot) {
        this.value = value;
        this.schemaRoot = schemaRoot;
        number(value, InstancePath.ROOT, new int[1]);
    }

    /** A problem before it is shown; {@code missing} when the path names a property that is not there. */
    private record Found(InstancePath path, boolean missing, String message) {
        ArgumentProblem problem() {
            return new ArgumentProblem(path.display(), message);
        }
    }

    /**
     * @param errors     what the validator found in {@code value}
     * @param value      the arguments as validated (after coercion)
     * @param schemaRoot the schema as compiled (normalized), to name properties and choices
     */
    static List<ArgumentProblem> of(List<Error> errors, JsonNode value, ObjectNode schemaRoot) {
        ProblemReport report = new ProblemReport(value, schemaRoot);
        List<Found> found = report.report(errors, 0);
        Set<ArgumentProblem> distinct = new LinkedHashSet<>();
        found.stream().sorted(Comparator.comparingLong(report::position)).forEach(f -> distinct.add(f.problem()));
        return List.copyOf(distinct);
    }

    /** One meta-schema error about a tool's schema, for {@link InvalidSchemaException}'s message. */
    static String describeSchemaError(Error error, JsonNode schema) {
        ProblemReport report = new ProblemReport(schema, null);
        Found found = report.translate(error);
        return found == null ? "does not satisfy the JSON Schema rules for \"" + error.getKeyword() + "\""
                : found.message();
    }

    // --- choices ---

    private List<Found> report(List<Error> errors, int from) {
        Map<List<Object>, List<Error>> groups = new LinkedHashMap<>();
        List<Error> plain = new ArrayList<>();
        for (Error error : errors) {
            List<Object> eval = elements(error);
            int choice = choiceAt(eval, from);
            if (choice < 0) {
                plain.add(error);
            } else {
                groups.computeIfAbsent(eval.subList(0, choice + 1), key -> new ArrayList<>()).add(error);
            }
        }
        List<Found> found = new ArrayList<>();
        Set<InstancePath> wrongType = new LinkedHashSet<>();
        plain.stream().filter(e -> "type".equals(e.getKeyword()))
                .forEach(e -> wrongType.add(InstancePath.of(e.getInstanceLocation())));
        for (Error error : plain) {
            boolean shadowed = !"type".equals(error.getKeyword())
                    && wrongType.contains(InstancePath.of(error.getInstanceLocation()));
            Found translated = shadowed ? null : translate(error);
            if (translated != null) {
                found.add(translated);
            }
        }
        groups.forEach((prefix, members) -> found.addAll(choice(prefix, members)));
        return found;
    }

    /** The problems of one {@code anyOf}/{@code oneOf} that no choice matched (or, for oneOf, several did). */
    private List<Found> choice(List<Object> prefix, List<Error> members) {
        int keywordAt = prefix.size() - 1;
        Error header = null;
        Map<Integer, List<Error>> branches = new LinkedHashMap<>();
        for (Error error : members) {
            List<Object> eval = elements(error);
            if (eval.size() == prefix.size()) {
                header = error; // oneOf's own error: how many choices matched
            } else if (eval.get(keywordAt + 1) instanceof Integer branch) {
                branches.computeIfAbsent(branch, key -> new ArrayList<>()).add(error);
            }
        }
        Error any = header != null ? header : members.getFirst();
        InstancePath at = header != null ? InstancePath.of(header.getInstanceLocation())
                : InstancePath.of(any.getInstanceLocation()).prefix(steps(elements(any), keywordAt));
        JsonNode given = at.find(value);
        JsonNode choices = header != null ? Coercer.orMissing(header.getSchemaNode())
                : choices(prefix);
        String expected = choices == null ? "one of the schema's choices"
                : SchemaSummary.of(NODES.objectNode().set("anyOf", choices), schemaRoot == null ? choices : schemaRoot);
        int matched = number(argument(header, 0), 0);
        if (header != null && branches.isEmpty() && matched > 1) {
            return List.of(new Found(at, false, "matches " + matched + " of the choices " + expected
                    + "; it must match exactly one"));
        }
        List<Found> closest = null;
        for (List<Error> branch : branches.values()) {
            List<Found> problems = report(branch, keywordAt + 2);
            boolean typeMatched = problems.stream().noneMatch(p -> p.path().equals(at) && !p.missing());
            if (typeMatched && !problems.isEmpty() && (closest == null || problems.size() < closest.size())) {
                closest = problems;
            }
        }
        if (closest != null) {
            return closest;
        }
        return List.of(new Found(at, false, "expected " + expected + ", got " + describe(given)));
    }

    /** The position of the first anyOf/oneOf in an evaluation path at or after {@code from}, or -1. */
    private static int choiceAt(List<Object> eval, int from) {
        for (int i = from; i < eval.size(); i++) {
            Object step = eval.get(i);
            if (step instanceof String keyword) {
                if ((keyword.equals("anyOf") || keyword.equals("oneOf"))
                        && (i + 1 == eval.size() || eval.get(i + 1) instanceof Integer)) {
                    return i;
                }
                if (NAMED.contains(keyword) || keyword.equals("items") && i + 1 < eval.size()
                        && eval.get(i + 1) instanceof Integer) {
                    i++; // skip the name or index: a property called "anyOf" is not the keyword
                }
            }
        }
        return -1;
    }

    /** How many steps into the value the first {@code end} steps of an evaluation path have gone. */
    private static int steps(List<Object> eval, int end) {
        int steps = 0;
        for (int i = 0; i < end; i++) {
            Object step = eval.get(i);
            if (step instanceof String keyword) {
                if (STEPPING.contains(keyword)) {
                    steps++;
                }
                if (NAMED.contains(keyword) || keyword.equals("items") && i + 1 < end
                        && eval.get(i + 1) instanceof Integer) {
                    i++;
                }
            }
        }
        return steps;
    }

    /** The schema an evaluation path leads to, following local {@code $ref}s; null when it leaves the document. */
    private JsonNode schemaAt(List<Object> eval) {
        if (schemaRoot == null) {
            return null;
        }
        JsonNode node = schemaRoot;
        for (int i = 0; i < eval.size() && node != null; i++) {
            Object step = eval.get(i);
            if ("$ref".equals(step)) {
                JsonNode ref = node.get("$ref");
                node = ref != null && ref.isString() && ref.stringValue(null).startsWith("#")
                        ? missingToNull(schemaRoot.at(ref.stringValue(null).substring(1))) : null;
            } else if (step instanceof String keyword && (NAMED.contains(keyword) || keyword.equals("items")
                    && i + 1 < eval.size() && eval.get(i + 1) instanceof Integer)) {
                JsonNode container = node.get(keyword);
                Object key = eval.get(++i);
                node = container == null ? null
                        : key instanceof Integer index ? container.get(index) : container.get(String.valueOf(key));
            } else {
                node = node.get(String.valueOf(step));
            }
        }
        return node;
    }

    private JsonNode choices(List<Object> prefix) {
        JsonNode parent = schemaAt(prefix.subList(0, prefix.size() - 1));
        JsonNode choices = parent == null ? null : parent.get((String) prefix.getLast());
        return choices != null && choices.isArray() ? choices : null;
    }

    private static JsonNode missingToNull(JsonNode node) {
        return node.isMissingNode() ? null : node;
    }

    private static List<Object> elements(Error error) {
        return InstancePath.of(error.getEvaluationPath()).steps();
    }

    // --- one error in words ---

    private Found translate(Error error) {
        InstancePath at = InstancePath.of(error.getInstanceLocation());
        JsonNode given = Optional.ofNullable(at.find(value)).orElse(NODES.missingNode());
        JsonNode rule = Coercer.orMissing(error.getSchemaNode());
        String keyword = error.getKeyword();
        return switch (keyword) {
            case "type" -> {
                List<String> types = SchemaTypes.of(rule);
                String hint = types.contains("string") && given.isNumber() ? " (text goes in quotes)" : "";
                yield new Found(at, false, "expected " + String.join(" or ", types) + ", got " + describe(given) + hint);
            }
            case "enum" -> new Found(at, false, "expected " + allowed(rule) + ", got " + describe(given));
            case "const" -> new Found(at, false, "expected " + rule + ", got " + describe(given));
            case "minimum" -> new Found(at, false, "must be at least " + rule + ", got " + given);
            case "maximum" -> new Found(at, false, "must be at most " + rule + ", got " + given);
            case "exclusiveMinimum" -> new Found(at, false, "must be greater than " + rule + ", got " + given);
            case "exclusiveMaximum" -> new Found(at, false, "must be less than " + rule + ", got " + given);
            case "multipleOf" -> new Found(at, false, "must be a multiple of " + rule + ", got " + given);
            case "minLength" -> new Found(at, false, rule.asInt() == 1 ? "must not be empty"
                    : "must be at least " + rule.asInt() + " characters long, got " + length(given));
            case "maxLength" -> new Found(at, false,
                    "must be at most " + rule.asInt() + " characters long, got " + length(given));
            case "pattern" -> new Found(at, false,
                    "must match the regular expression " + rule.asString() + ", got " + describe(given));
            case "format" -> new Found(at, false, "must be a valid " + rule.asString()
                    + FormatHints.of(rule.asString()) + ", got " + describe(given));
            case "minItems" -> new Found(at, false, "must have at least " + count(rule.asInt(), "item")
                    + ", got " + given.size());
            case "maxItems" -> new Found(at, false, "must have at most " + count(rule.asInt(), "item")
                    + ", got " + given.size());
            case "minProperties" -> new Found(at, false, "must have at least " + count(rule.asInt(), "property")
                    + ", got " + given.size());
            case "maxProperties" -> new Found(at, false, "must have at most " + count(rule.asInt(), "property")
                    + ", got " + given.size());
            case "uniqueItems" -> repeated(at, given);
            case "required" -> new Found(at.child(error.getProperty()), true, "required but missing");
            case "dependentRequired", "dependencies" -> dependency(error, at, given, rule);
            case "additionalProperties", "unevaluatedProperties" -> error.getProperty() == null ? null
                    : new Found(at.child(error.getProperty()), false, unknownProperty(error));
            case "items", "additionalItems", "unevaluatedItems" -> error.getIndex() == null ? null
                    : new Found(at.child(error.getIndex()), false, "unexpected item; this array takes at most "
                            + count(error.getIndex(), "item"));
            case "false" -> new Found(at, false, "not allowed here");
            case "not" -> new Found(at, false, "must not be " + shape(rule));
            case "contains", "minContains" -> new Found(at, false, "must contain "
                    + (number(argument(error, 0), 1) != 1 ? "at least " + number(argument(error, 0), 1) + " items that are"
                            : "an item that is") + " " + shape(rule));
            case "maxContains" -> new Found(at, false, "must contain at most "
                    + count(number(argument(error, 0), 0), "item") + " that " + (number(argument(error, 0), 0) == 1
                            ? "is " : "are ") + shape(rule));
            case "propertyNames" -> error.getProperty() == null ? null
                    : new Found(at.child(error.getProperty()), false, "this property name is not allowed (names must be "
                            + shape(rule) + ")");
            case "oneOf", "anyOf" -> null; // reported through their choices
            default -> new Found(at, false, "does not satisfy \"" + keyword + "\": " + shape(rule));
        };
    }

    /** A count among an error's arguments, which the validator gives as a number or as text. */
    private static int number(Object argument, int otherwise) {
        if (argument instanceof Number n) {
            return n.intValue();
        }
        try {
            return argument == null ? otherwise : Integer.parseInt(argument.toString().strip());
        } catch (NumberFormatException notANumber) {
            return otherwise;
        }
    }

    private static Object argument(Error error, int index) {
        if (error == null) {
            return null;
        }
        Object[] arguments = error.getArguments();
        return arguments != null && arguments.length > index ? arguments[index] : null;
    }

    /** {@code dependentRequired} (and draft-07's {@code dependencies}): each missing property, at its place. */
    private Found dependency(Error error, InstancePath at, JsonNode given, JsonNode rule) {
        String present = error.getProperty();
        JsonNode needed = present == null ? null : rule.get(present);
        if (needed != null && needed.isArray()) {
            for (JsonNode name : needed) {
                if (name.isString() && !given.has(name.stringValue(null))) {
                    return new Found(at.child(name.stringValue(null)), true, "required when \"" + present + "\" is given");
                }
            }
        }
        return new Found(at, false, present == null ? "misses a property another one requires"
                : "does not satisfy what \"" + present + "\" requires: " + shape(needed == null ? rule : needed));
    }

    private static String allowed(JsonNode values) {
        if (values.size() == 1) {
            return values.get(0).toString();
        }
        List<String> each = new ArrayList<>();
        values.forEach(v -> each.add(v.toString()));
        return "one of " + String.join(", ", each);
    }

    private static Found repeated(InstancePath at, JsonNode array) {
        for (int i = 0; i < array.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (JsonValues.same(array.get(i), array.get(j))) {
                    return new Found(at.child(i), false, "repeats item " + j + "; items must be unique");
                }
            }
        }
        return new Found(at, false, "items must be unique");
    }

    private String unknownProperty(Error error) {
        List<Object> eval = elements(error);
        JsonNode parent = schemaAt(eval.subList(0, eval.size() - 1));
        List<String> names = new ArrayList<>();
        if (parent != null && parent.path("properties").isObject()) {
            parent.path("properties").propertyNames().forEach(names::add);
        }
        if (names.isEmpty()) {
            return "unknown property; this object takes none";
        }
        String name = error.getProperty();
        Optional<String> near = names.stream()
                .filter(known -> EditDistance.between(known, name) <= 2)
                .min(Comparator.comparingInt(known -> EditDistance.between(known, name)));
        if (near.isPresent()) {
            return "unknown property; did you mean \"" + near.get() + "\"?";
        }
        return "unknown property; the properties are "
                + names.stream().map(known -> "\"" + known + "\"").collect(Collectors.joining(", "));
    }

    /** A subschema as a model reads it: the one-line summary, or its JSON when the summary says too little. */
    private String shape(JsonNode schema) {
        String summary = SchemaSummary.of(schema, schemaRoot == null ? schema : schemaRoot);
        if (!summary.equals("any") && !summary.equals("object") && !summary.equals("array")) {
            return summary;
        }
        String json = schema.toString();
        return json.length() <= MAX_SCHEMA_TEXT ? json : json.substring(0, MAX_SCHEMA_TEXT) + "…";
    }

    private static String describe(JsonNode value) {
        return value == null || value.isMissingNode() ? "nothing" : JsonValues.describe(value);
    }

    private static int length(JsonNode text) {
        String s = text.asString();
        return s.codePointCount(0, s.length());
    }

    private static String count(int n, String noun) {
        String plural = noun.endsWith("y") ? noun.substring(0, noun.length() - 1) + "ies" : noun + "s";
        return n + " " + (n == 1 ? noun : plural);
    }

    // --- order ---

    /** Numbers every value in document order: index and the size of its subtree. */
    private int number(JsonNode node, InstancePath path, int[] next) {
        int index = next[0]++;
        int size = 1;
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                size += number(field.getValue(), path.child(field.getKey()), next);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                size += number(node.get(i), path.child(i), next);
            }
        }
        positions.put(path, new int[] {index, size});
        return size;
    }

    /** Where a problem goes: at its value, or, for a value that is not there, after its parent's subtree. */
    private long position(Found found) {
        int[] at = found.missing() ? null : positions.get(found.path());
        if (at != null) {
            return 2L * at[0];
        }
        InstancePath parent = found.path().isRoot() ? found.path() : found.path().parent();
        while (!parent.isRoot() && !positions.containsKey(parent)) {
            parent = parent.parent();
        }
        int[] enclosing = positions.getOrDefault(parent, new int[] {0, positions.size()});
        return 2L * (enclosing[0] + enclosing[1]) - 1;
    }
}
