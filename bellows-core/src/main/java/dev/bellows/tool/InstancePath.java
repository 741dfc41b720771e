package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;
import com.networknt.schema.path.NodePath;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a value is inside a tool's arguments: property names ({@code String}) and array
 * indexes ({@code Integer}) from the root. Shown to the model as {@code steps[2].status},
 * {@code ["odd key"]} or {@code (root)}.
 */
record InstancePath(List<Object> steps) {

    static final InstancePath ROOT = new InstancePath(List.of());

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$-]*");

    InstancePath {
        steps = List.copyOf(steps);
    }

    /** The validator's location of a value. */
    static InstancePath of(NodePath path) {
        List<Object> steps = new ArrayList<>(path.getNameCount());
        for (int i = 0; i < path.getNameCount(); i++) {
            steps.add(path.getElement(i));
        }
        return new InstancePath(steps);
    }

    InstancePath child(Object step) {
        List<Object> longer = new ArrayList<>(steps);
        longer.add(step);
        return new InstancePath(longer);
    }

    /** The first {@code count} steps. */
    InstancePath prefix(int count) {
        return new InstancePath(steps.subList(0, Math.min(count, steps.size())));
    }

    InstancePath parent() {
        return prefix(steps.size() - 1);
    }

    boolean isRoot() {
        return steps.isEmpty();
    }

    Object last() {
        return steps.getLast();
    }

    /** The value at this path in {@code root}, or {@code null} when there is none. */
    JsonNode find(JsonNode root) {
        JsonNode node = root;
        for (Object step : steps) {
            if (node == null) {
                return null;
            }
            node = step instanceof Integer index ? (node.isArray() ? node.get(index) : null) : node.get((String) step);
        }
        return node;
    }

    /** {@code steps[2].status}, {@code ["odd key"]}, or {@link ArgumentProblem#ROOT}. */
    String display() {
        if (steps.isEmpty()) {
            return ArgumentProblem.ROOT;
        }
        StringBuilder out = new StringBuilder();
        for (Object step : steps) {
            if (step instanceof Integer index) {
                out.append('[').append(index).append(']');
            } else if (PLAIN_NAME.matcher((String) step).matches()) {
                out.append(out.isEmpty() ? "" : ".").append(step);
            } else {
                out.append('[').append(StringNode.valueOf((String) step)).append(']');
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return display();
    }
}
