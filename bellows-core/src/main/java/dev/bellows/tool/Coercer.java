package dev.bellows.tool;

import dev.bellows.tool.internal.SchemaTypes;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Validates arguments and forgives, where nothing is lost, the slips models make
 * ({@link Coercions}). Coercion is driven by the validator's own findings: a value is
 * converted only where the validator found the wrong type, or a string outside an enum that
 * matches one allowed value but for case; the result is validated again, and again, until it
 * is valid or nothing more can be forgiven. So a value that is valid as written is never
 * changed, a coerced value always passes the full schema (every keyword, not only types),
 * and the schema logic ({@code $ref}, {@code if}/{@code then}, {@code not}...) exists once, in
 * the validator.
 *
 * <p>Works on a copy that the caller owns; the copy is what is returned.
 */
final class Coercer {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    // Each round fixes at least one place that no earlier round touched; arguments that need
    // more than this are not slips but a different shape.
    private static final int MAX_ROUNDS = 32;

    private final Schema schema;
    private final JsonNode root;

    private Coercer(Schema schema, JsonNode root) {
        this.schema = schema;
        this.root = root;
    }

    /** The value, coerced where that helped, and what is still wrong with it (empty when valid). */
    record Outcome(JsonNode value, List<Error> errors) {
    }

    /** @param copy the arguments, as a copy the caller owns: it is changed in place and returned */
    static Outcome check(Schema schema, JsonNode copy) {
        List<Error> errors = validate(schema, copy);
        if (errors.isEmpty()) {
            return new Outcome(integralNumbers(schema, copy), errors);
        }
        ObjectNode holder = NODES.objectNode().set("value", copy); // so that the root can be replaced too
        return new Coercer(schema, holder).run(errors);
    }

    /** A validator's schema fragment, or the missing node when the error has none. */
    static JsonNode orMissing(JsonNode schemaNode) {
        return schemaNode == null ? MissingNode.getInstance() : schemaNode;
    }

    static List<Error> validate(Schema schema, JsonNode value) {
        try {
            return schema.validate(value);
        } catch (StackOverflowError loop) {
            // A loop the compile-time check could not see (through a nested $id): the tool's
            // bug, reported as such to whoever runs the call, never a crash of its thread.
            throw new InvalidSchemaException("the tool's JSON Schema refers to itself without end ($ref cycle)"
                    + " for these arguments");
        }
    }

    private Outcome run(List<Error> errors) {
        Set<InstancePath> touched = new HashSet<>();
        Map<InstancePath, Removed> removed = new HashMap<>();
        for (int round = 0; round < MAX_ROUNDS && !errors.isEmpty(); round++) {
            boolean changed = restoreRequired(errors, removed);
            if (!changed) {
                changed = coerce(errors, touched, removed);
            }
            if (!changed) {
                break;
            }
            errors = validate(schema, value());
        }
        JsonNode value = value();
        return new Outcome(errors.isEmpty() ? integralNumbers(schema, value) : value, errors);
    }

    private JsonNode value() {
        return root.get("value");
    }

    /** A null taken as "not given" for a property the schema requires was a null after all: put it back. */
    private boolean restoreRequired(List<Error> errors, Map<InstancePath, Removed> removed) {
        boolean changed = false;
        for (Error error : errors) {
            if ("required".equals(error.getKeyword()) && error.getProperty() != null) {
                InstancePath path = InstancePath.of(error.getInstanceLocation()).child(error.getProperty());
                Removed gone = removed.remove(path);
                if (gone != null) {
                    gone.restore();
                    changed = true;
                }
            }
        }
        return changed;
    }

    private boolean coerce(List<Error> errors, Set<InstancePath> touched, Map<InstancePath, Removed> removed) {
        // The best repair for each place, over every error there (several choices of an anyOf may disagree).
        Map<InstancePath, Candidate> best = new LinkedHashMap<>();
        for (Error error : errors) {
            InstancePath path = InstancePath.of(error.getInstanceLocation());
            if (touched.contains(path) || !List.of("type", "enum", "const").contains(error.getKeyword())) {
                continue;
            }
            JsonNode current = wrapped(path).find(root);
            if (current == null) {
                continue;
            }
            candidate(error, path, current).ifPresent(candidate -> best.merge(path, candidate,
                    (a, b) -> b.rank() < a.rank() ? b : a));
        }
        for (Candidate candidate : best.values()) {
            touched.add(candidate.path());
            if (candidate.replacement() == null) {
                removed.put(candidate.path(), remove(candidate.path()));
            } else {
                replace(candidate.path(), candidate.replacement());
            }
        }
        return !best.isEmpty();
    }

    /** A repair: a value to put in place ({@code null}: remove the property), lower rank preferred. */
    private record Candidate(InstancePath path, JsonNode replacement, int rank) {
    }

    private Optional<Candidate> candidate(Error error, InstancePath path, JsonNode current) {
        JsonNode rule = orMissing(error.getSchemaNode());
        if (current.isNull()) {
            // null for an optional argument means "not given" to the model (OpenAI's strict mode
            // even asks for it): taken as absent; put back if the property turns out required.
            JsonNode parent = wrapped(path).parent().find(root);
            return parent != null && parent.isObject() && !path.isRoot()
                    ? Optional.of(new Candidate(path, null, 9)) : Optional.empty();
        }
        if (error.getKeyword().equals("type")) {
            for (String type : SchemaTypes.of(rule)) {
                Optional<JsonNode> coerced = Coercions.coerce(type, current);
                if (coerced.isPresent()) {
                    // Wrapping a value in an array is the boldest guess: any other repair goes first.
                    boolean jsonText = current.isString() && (type.equals("object")
                            || current.stringValue(null).strip().startsWith("["));
                    int rank = type.equals("array") && !jsonText ? 8 : jsonText ? 5 : 1;
                    return Optional.of(new Candidate(path, coerced.get(), rank));
                }
            }
            return Optional.empty();
        }
        JsonNode allowed = error.getKeyword().equals("const") ? NODES.arrayNode().add(rule) : rule;
        return sameButForCase(allowed, current).map(match -> new Candidate(path, match, 0));
    }

    /** The one allowed string that differs from the value only in case; empty when none or several. */
    private static Optional<JsonNode> sameButForCase(JsonNode allowed, JsonNode value) {
        if (!value.isString() || !allowed.isArray()) {
            return Optional.empty();
        }
        List<JsonNode> matches = new ArrayList<>();
        allowed.forEach(each -> {
            if (each.isString() && each.stringValue(null).equalsIgnoreCase(value.stringValue(null))) {
                matches.add(each);
            }
        });
        return matches.size() == 1 ? Optional.of(matches.getFirst()) : Optional.empty();
    }

    private static InstancePath wrapped(InstancePath path) {
        List<Object> steps = new ArrayList<>(path.steps().size() + 1);
        steps.add("value");
        steps.addAll(path.steps());
        return new InstancePath(steps);
    }

    private void replace(InstancePath path, JsonNode replacement) {
        InstancePath at = wrapped(path);
        JsonNode parent = at.parent().find(root);
        if (parent instanceof ObjectNode object) {
            object.set((String) at.last(), replacement);
        } else if (parent instanceof ArrayNode array) {
            array.set((Integer) at.last(), replacement);
        }
    }

    private Removed remove(InstancePath path) {
        InstancePath at = wrapped(path);
        ObjectNode parent = (ObjectNode) at.parent().find(root);
        List<String> order = new ArrayList<>();
        parent.propertyNames().forEach(order::add);
        String name = (String) at.last();
        JsonNode was = parent.remove(name);
        return new Removed(parent, name, was, order);
    }

    /** A property removed as "not given", with what it takes to put it back where it was. */
    private record Removed(ObjectNode parent, String name, JsonNode value, List<String> order) {
        void restore() {
            Map<String, JsonNode> fields = new LinkedHashMap<>();
            for (String field : order) {
                JsonNode current = field.equals(name) ? value : parent.get(field);
                if (current != null) {
                    fields.put(field, current);
                }
            }
            parent.propertyNames().forEach(field -> fields.putIfAbsent(field, parent.get(field)));
            parent.removeAll();
            parent.setAll(fields);
        }
    }

    /**
     * {@code 3.0} where the schema wants an integer, as {@code 3}. JSON Schema counts 3.0 as an
     * integer, so the validator finds nothing; but a tool written in a typed language wants an
     * integer. Numbers written with a fraction or exponent are rare in arguments, so each is
     * asked about separately: the validator is shown a value of no type at that place, and
     * says which types it expected there.
     */
    private static JsonNode integralNumbers(Schema schema, JsonNode value) {
        List<InstancePath> integral = new ArrayList<>();
        findIntegral(value, InstancePath.ROOT, integral);
        if (integral.isEmpty()) {
            return value;
        }
        ObjectNode holder = NODES.objectNode().set("value", value);
        for (InstancePath path : integral) {
            InstancePath at = wrapped(path);
            JsonNode number = at.find(holder);
            JsonNode probe = holder.deepCopy();
            setAt(probe, at, NODES.objectNode().put("", "probe"));
            boolean wantsInteger = false;
            boolean wantsNumber = false;
            for (Error error : validate(schema, probe.get("value"))) {
                if ("type".equals(error.getKeyword()) && InstancePath.of(error.getInstanceLocation()).equals(path)) {
                    List<String> types = SchemaTypes.of(orMissing(error.getSchemaNode()));
                    wantsInteger |= types.contains("integer");
                    wantsNumber |= types.contains("number");
                }
            }
            if (wantsInteger && !wantsNumber) {
                setAt(holder, at, Coercions.integerNode(number.decimalValue().toBigIntegerExact()));
            }
        }
        return holder.get("value");
    }

    private static void findIntegral(JsonNode node, InstancePath path, List<InstancePath> found) {
        if (node.isObject()) {
            node.properties().forEach(field -> findIntegral(field.getValue(), path.child(field.getKey()), found));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                findIntegral(node.get(i), path.child(i), found);
            }
        } else if (node.isNumber() && !node.isIntegralNumber() && isWhole(node)) {
            found.add(path);
        }
    }

    private static boolean isWhole(JsonNode number) {
        if ((number.isDouble() || number.isFloat()) && !Double.isFinite(number.doubleValue())) {
            return false;
        }
        BigDecimal value = number.decimalValue();
        return value.signum() == 0 || value.stripTrailingZeros().scale() <= 0
                && value.precision() - value.scale() <= 1000;
    }

    private static void setAt(JsonNode holder, InstancePath at, JsonNode replacement) {
        JsonNode parent = at.parent().find(holder);
        if (parent instanceof ObjectNode object) {
            object.set((String) at.last(), replacement);
        } else if (parent instanceof ArrayNode array) {
            array.set((Integer) at.last(), replacement);
        }
    }
}
