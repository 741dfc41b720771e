package dev.bellows.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * One validation of a value against a schema: walks both, collects every problem, and returns
 * the value with {@link Coercions} applied. Containers it returns are new; the value it is
 * given must already be a copy the caller owns, because leaves are shared.
 */
final class SchemaCheck {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    // Values are finite, so only a $ref cycle that never reaches a value goes this deep.
    private static final int MAX_DEPTH = 1000;

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$-]*");

    private final JsonNode root;
    private final List<ArgumentProblem> problems = new ArrayList<>();
    private int depth;

    SchemaCheck(JsonNode root) {
        this.root = root;
    }

    List<ArgumentProblem> problems() {
        return problems;
    }

    /**
     * The value, coerced where that is lossless; problems are added to {@link #problems()}.
     *
     * @param path where the value is, {@code ""} for the root
     */
    JsonNode check(JsonNode schema, JsonNode value, String path) {
        if (++depth > MAX_DEPTH) {
            throw new IllegalArgumentException("the tool's JSON Schema refers to itself without end ($ref cycle)"
                    + " or is nested deeper than " + MAX_DEPTH + " levels");
        }
        try {
            return checkNode(schema, value, path);
        } finally {
            depth--;
        }
    }

    private JsonNode checkNode(JsonNode schema, JsonNode value, String path) {
        if (schema.isBoolean()) {
            if (!schema.booleanValue()) {
                problem(path, "not allowed here");
            }
            return value;
        }
        if (!schema.isObject()) {
            return value;
        }
        int before = problems.size();
        JsonNode ref = schema.get("$ref");
        if (ref != null && ref.isTextual()) {
            value = check(resolve(ref.textValue()), value, path);
            if (problems.size() > before) {
                return value;
            }
        }
        if (value.isNull() && schema.path("nullable").asBoolean(false)) {
            return value; // OpenAPI's way of saying "or null", common in hand-written schemas
        }
        value = checkType(schema, value, path);
        if (problems.size() > before) {
            return value;
        }
        value = checkAllowedValues(schema, value, path);
        if (problems.size() > before) {
            return value;
        }
        if (value.isNumber()) {
            checkNumber(schema, value, path);
        } else if (value.isTextual()) {
            checkString(schema, value.textValue(), path);
        } else if (value.isArray()) {
            value = checkArray(schema, value, path);
        } else if (value.isObject()) {
            value = checkObject(schema, value, path);
        }
        if (problems.size() > before) {
            return value;
        }
        return checkCombinations(schema, value, path);
    }

    private JsonNode resolve(String ref) {
        if (!ref.startsWith("#")) {
            // A remote schema cannot be fetched here; the tool itself will judge those values.
            return NODES.booleanNode(true);
        }
        JsonNode target = root.at(ref.substring(1));
        if (target.isMissingNode()) {
            throw new IllegalArgumentException("the tool's JSON Schema refers to " + ref
                    + ", which it does not define (under $defs or definitions)");
        }
        return target;
    }

    private JsonNode checkType(JsonNode schema, JsonNode value, String path) {
        List<String> types = types(schema.get("type"));
        if (types.isEmpty() || types.stream().anyMatch(type -> Coercions.matches(type, value))) {
            return value;
        }
        for (String type : types) {
            Optional<JsonNode> coerced = Coercions.coerce(type, value);
            if (coerced.isPresent()) {
                return coerced.get();
            }
        }
        String hint = types.contains("string") && value.isNumber() ? " (text goes in quotes)" : "";
        problem(path, "expected " + String.join(" or ", types) + ", got " + JsonValues.describe(value) + hint);
        return value;
    }

    static List<String> types(JsonNode type) {
        if (type == null) {
            return List.of();
        }
        if (type.isTextual()) {
            return List.of(type.textValue());
        }
        List<String> types = new ArrayList<>();
        type.forEach(each -> {
            if (each.isTextual()) {
                types.add(each.textValue());
            }
        });
        return types;
    }

    /** {@code enum} and {@code const}; a string that differs only in case from exactly one allowed string is taken as it. */
    private JsonNode checkAllowedValues(JsonNode schema, JsonNode value, String path) {
        JsonNode allowed = schema.get("enum");
        if (allowed != null && allowed.isArray()) {
            value = oneOf(allowed, value, path);
        }
        JsonNode constant = schema.get("const");
        if (constant != null) {
            value = oneOf(NODES.arrayNode().add(constant), value, path);
        }
        return value;
    }

    private JsonNode oneOf(JsonNode allowed, JsonNode value, String path) {
        for (JsonNode each : allowed) {
            if (JsonValues.same(each, value)) {
                return value;
            }
        }
        if (value.isTextual()) {
            // "Celsius" for "celsius": unambiguous, so the model's meaning is clear and nothing is lost.
            List<JsonNode> sameIgnoringCase = new ArrayList<>();
            allowed.forEach(each -> {
                if (each.isTextual() && each.textValue().equalsIgnoreCase(value.textValue())) {
                    sameIgnoringCase.add(each);
                }
            });
            if (sameIgnoringCase.size() == 1) {
                return sameIgnoringCase.getFirst();
            }
        }
        String expected = allowed.size() == 1 ? allowed.get(0).toString()
                : "one of " + stream(allowed).map(JsonNode::toString).collect(Collectors.joining(", "));
        problem(path, "expected " + expected + ", got " + JsonValues.describe(value));
        return value;
    }

    private void checkNumber(JsonNode schema, JsonNode value, String path) {
        BigDecimal number = value.decimalValue();
        boolean exclusiveMinimum = schema.path("exclusiveMinimum").asBoolean(false); // draft 4's form
        boolean exclusiveMaximum = schema.path("exclusiveMaximum").asBoolean(false);
        JsonNode minimum = schema.get("minimum");
        if (minimum != null && minimum.isNumber()) {
            bound(number, minimum, exclusiveMinimum ? 1 : 0, path, value, exclusiveMinimum ? "greater than" : "at least");
        }
        JsonNode maximum = schema.get("maximum");
        if (maximum != null && maximum.isNumber()) {
            bound(number, maximum, exclusiveMaximum ? -1 : 0, path, value, exclusiveMaximum ? "less than" : "at most");
        }
        JsonNode exclusiveMinimumValue = schema.get("exclusiveMinimum");
        if (exclusiveMinimumValue != null && exclusiveMinimumValue.isNumber()) {
            bound(number, exclusiveMinimumValue, 1, path, value, "greater than");
        }
        JsonNode exclusiveMaximumValue = schema.get("exclusiveMaximum");
        if (exclusiveMaximumValue != null && exclusiveMaximumValue.isNumber()) {
            bound(number, exclusiveMaximumValue, -1, path, value, "less than");
        }
        JsonNode multipleOf = schema.get("multipleOf");
        if (multipleOf != null && multipleOf.isNumber() && multipleOf.decimalValue().signum() > 0
                && number.remainder(multipleOf.decimalValue()).signum() != 0) {
            problem(path, "must be a multiple of " + multipleOf + ", got " + value);
        }
    }

    /**
     * @param side 1: must be above the bound; -1: below; 0 with the words: at least / at most
     */
    private void bound(BigDecimal number, JsonNode bound, int side, String path, JsonNode value, String words) {
        int comparison = number.compareTo(bound.decimalValue());
        boolean ok = switch (side) {
            case 1 -> comparison > 0;
            case -1 -> comparison < 0;
            default -> words.equals("at least") ? comparison >= 0 : comparison <= 0;
        };
        if (!ok) {
            problem(path, "must be " + words + " " + bound + ", got " + value);
        }
    }

    private void checkString(JsonNode schema, String text, String path) {
        int length = text.codePointCount(0, text.length()); // JSON Schema counts characters, not UTF-16 units
        JsonNode minLength = schema.get("minLength");
        if (minLength != null && minLength.canConvertToInt() && length < minLength.intValue()) {
            problem(path, minLength.intValue() == 1 ? "must not be empty"
                    : "must be at least " + minLength.intValue() + " characters long, got " + length);
        }
        JsonNode maxLength = schema.get("maxLength");
        if (maxLength != null && maxLength.canConvertToInt() && length > maxLength.intValue()) {
            problem(path, "must be at most " + maxLength.intValue() + " characters long, got " + length);
        }
        JsonNode pattern = schema.get("pattern");
        if (pattern != null && pattern.isTextual()) {
            Optional<Pattern> compiled = compile(pattern.textValue());
            // JSON Schema patterns are not anchored: "find", not "matches".
            if (compiled.isPresent() && !compiled.get().matcher(text).find()) {
                problem(path, "must match the regular expression " + pattern.textValue()
                        + ", got " + JsonValues.describe(TextNode.valueOf(text)));
            }
        }
    }

    /** A pattern Java cannot compile is the tool's bug, not the model's: it is skipped, not reported to the model. */
    private static Optional<Pattern> compile(String regex) {
        try {
            return Optional.of(Pattern.compile(regex));
        } catch (PatternSyntaxException notJava) {
            return Optional.empty();
        }
    }

    private JsonNode checkArray(JsonNode schema, JsonNode value, String path) {
        JsonNode items = schema.get("items");
        JsonNode prefixItems = schema.get("prefixItems");
        if (items != null && items.isArray()) { // draft 4 to 2019's tuple form
            prefixItems = items;
            items = null;
        }
        ArrayNode result = NODES.arrayNode(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonNode itemSchema = prefixItems != null && prefixItems.isArray() && i < prefixItems.size()
                    ? prefixItems.get(i) : items;
            result.add(itemSchema == null ? value.get(i) : check(itemSchema, value.get(i), index(path, i)));
        }
        JsonNode minItems = schema.get("minItems");
        if (minItems != null && minItems.canConvertToInt() && result.size() < minItems.intValue()) {
            problem(path, "must have at least " + count(minItems.intValue()) + ", got " + result.size());
        }
        JsonNode maxItems = schema.get("maxItems");
        if (maxItems != null && maxItems.canConvertToInt() && result.size() > maxItems.intValue()) {
            problem(path, "must have at most " + count(maxItems.intValue()) + ", got " + result.size());
        }
        if (schema.path("uniqueItems").asBoolean(false)) {
            checkUnique(result, path);
        }
        return result;
    }

    private static String count(int items) {
        return items + (items == 1 ? " item" : " items");
    }

    private void checkUnique(JsonNode array, String path) {
        for (int i = 0; i < array.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (JsonValues.same(array.get(i), array.get(j))) {
                    problem(index(path, i), "repeats item " + j + "; items must be unique");
                    break;
                }
            }
        }
    }

    private JsonNode checkObject(JsonNode schema, JsonNode value, String path) {
        JsonNode properties = schema.path("properties");
        Set<String> required = new LinkedHashSet<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        JsonNode additional = schema.get("additionalProperties");
        JsonNode patterns = schema.path("patternProperties");
        ObjectNode result = NODES.objectNode();
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            String name = field.getKey();
            JsonNode item = field.getValue();
            String itemPath = child(path, name);
            JsonNode propertySchema = properties.get(name);
            boolean known = propertySchema != null;
            if (known) {
                if (item.isNull() && !required.contains(name) && !accepts(propertySchema, item)) {
                    // null for an optional argument means "not given" to the model (OpenAI's strict
                    // mode even asks for it), so it is read as absent rather than refused.
                    continue;
                }
                item = check(propertySchema, item, itemPath);
            }
            for (Map.Entry<String, JsonNode> pattern : patterns.properties()) {
                Optional<Pattern> compiled = compile(pattern.getKey());
                if (compiled.isPresent() && compiled.get().matcher(name).find()) {
                    known = true;
                    item = check(pattern.getValue(), item, itemPath);
                }
            }
            if (!known && additional != null) {
                if (additional.isBoolean() && !additional.booleanValue()) {
                    problem(itemPath, unknownProperty(name, properties));
                    continue;
                }
                item = check(additional, item, itemPath);
            }
            result.set(name, item);
        }
        for (String name : required) {
            if (!value.has(name)) {
                problem(child(path, name), "required but missing");
            }
        }
        return result;
    }

    private boolean accepts(JsonNode schema, JsonNode value) {
        SchemaCheck trial = new SchemaCheck(root);
        trial.check(schema, value, "");
        return trial.problems.isEmpty();
    }

    private static String unknownProperty(String name, JsonNode properties) {
        List<String> names = new ArrayList<>();
        properties.fieldNames().forEachRemaining(names::add);
        if (names.isEmpty()) {
            return "unknown property; this object takes none";
        }
        Optional<String> near = names.stream()
                .filter(known -> known.equalsIgnoreCase(name) || editDistance(known, name) <= 2)
                .min((a, b) -> Integer.compare(editDistance(a, name), editDistance(b, name)));
        if (near.isPresent()) {
            return "unknown property; did you mean \"" + near.get() + "\"?";
        }
        return "unknown property; the properties are "
                + names.stream().map(known -> "\"" + known + "\"").collect(Collectors.joining(", "));
    }

    /** Levenshtein distance, ignoring case: short names only, so the quadratic cost is nothing. */
    private static int editDistance(String a, String b) {
        a = a.toLowerCase(java.util.Locale.ROOT);
        b = b.toLowerCase(java.util.Locale.ROOT);
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /**
     * {@code allOf} applies every schema in turn. {@code anyOf} and {@code oneOf} both take the
     * first schema the value matches as written, else the first it matches after coercion: a
     * strict {@code oneOf} would refuse values that match two schemas, which the model cannot
     * see and the tool can handle.
     */
    private JsonNode checkCombinations(JsonNode schema, JsonNode value, String path) {
        JsonNode allOf = schema.get("allOf");
        if (allOf != null && allOf.isArray()) {
            for (JsonNode each : allOf) {
                value = check(each, value, path);
            }
        }
        for (String keyword : List.of("anyOf", "oneOf")) {
            JsonNode choices = schema.get(keyword);
            if (choices != null && choices.isArray() && !choices.isEmpty()) {
                value = checkChoice(choices, value, path);
            }
        }
        return value;
    }

    private JsonNode checkChoice(JsonNode choices, JsonNode value, String path) {
        List<SchemaCheck> trials = new ArrayList<>();
        JsonNode firstCoerced = null;
        for (JsonNode choice : choices) {
            SchemaCheck trial = new SchemaCheck(root);
            trial.depth = depth;
            JsonNode result = trial.check(choice, value, path);
            if (trial.problems.isEmpty()) {
                if (result.equals(value)) {
                    return result;
                }
                if (firstCoerced == null) {
                    firstCoerced = result;
                }
            }
            trials.add(trial);
        }
        if (firstCoerced != null) {
            return firstCoerced;
        }
        // The value had the right type for some choice: its problems inside say more than "none matched".
        SchemaCheck closest = null;
        for (SchemaCheck trial : trials) {
            boolean typeMatched = trial.problems.stream().noneMatch(problem -> problem.path().equals(display(path)));
            if (typeMatched && (closest == null || trial.problems.size() < closest.problems.size())) {
                closest = trial;
            }
        }
        if (closest != null) {
            problems.addAll(closest.problems);
        } else {
            problem(path, "expected " + SchemaSummary.of(NODES.objectNode().set("anyOf", choices), root)
                    + ", got " + JsonValues.describe(value));
        }
        return value;
    }

    private void problem(String path, String message) {
        problems.add(new ArgumentProblem(display(path), message));
    }

    private static String display(String path) {
        return path.isEmpty() ? ArgumentProblem.ROOT : path;
    }

    private static String child(String path, String name) {
        if (PLAIN_NAME.matcher(name).matches()) {
            return path.isEmpty() ? name : path + "." + name;
        }
        return path + "[" + TextNode.valueOf(name) + "]";
    }

    private static String index(String path, int index) {
        return path + "[" + index + "]";
    }

    private static java.util.stream.Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        array.forEach(items::add);
        return items.stream();
    }
}
