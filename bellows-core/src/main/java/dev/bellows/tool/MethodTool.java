package dev.bellows.tool;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.Jackson;
import dev.bellows.tool.internal.ArgumentValidator;
import dev.bellows.tool.internal.SchemaSummary;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.annotation.ToolParam;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A tool made from a method annotated {@link dev.bellows.tool.annotation.Tool}: the schema is
 * generated from its parameters as a typed tool's is from its record, the arguments are checked
 * and coerced by the same {@link ArgumentValidator}, then each is bound to its parameter.
 */
final class MethodTool implements Tool {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    /** A parameter: an argument by name, or the call's context. */
    private record Slot(String name, JavaType type, boolean context, boolean optional) {
    }

    private final Object target;
    private final Method method;
    private final String name;
    private final String description;
    private final JsonNode schema;      // frozen
    private final List<Slot> slots = new ArrayList<>();

    MethodTool(Object target, Method method, dev.bellows.tool.annotation.Tool annotation) {
        this.target = target;
        this.method = method;
        String owner = "method " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        this.name = annotation.name().isBlank() ? method.getName() : annotation.name();
        String text = !annotation.value().isBlank() ? annotation.value() : annotation.description();
        if (text.isBlank()) {
            throw new IllegalArgumentException(owner + " has no description; say what the tool does and when to use"
                    + " it in @Tool(\"...\")");
        }
        this.description = text;
        List<JsonSchemas.Element> elements = new ArrayList<>();
        List<String> notRequired = new ArrayList<>();
        for (Parameter parameter : method.getParameters()) {
            Type type = parameter.getParameterizedType();
            if (parameter.getType() == ToolContext.class) {
                slots.add(new Slot(null, null, true, false));
                continue;
            }
            ToolParam param = parameter.getAnnotation(ToolParam.class);
            String argument = param != null && !param.name().isBlank() ? param.name() : parameter.getName();
            if (!parameter.isNamePresent() && (param == null || param.name().isBlank())) {
                throw new IllegalArgumentException(owner + ": the parameter names were not compiled in; compile with"
                        + " javac -parameters, or name each with @ToolParam(name = \"...\")");
            }
            String about = param == null ? null : !param.value().isBlank() ? param.value()
                    : !param.description().isBlank() ? param.description() : null;
            boolean optional = type instanceof java.lang.reflect.ParameterizedType p && p.getRawType() == Optional.class
                    || type == OptionalInt.class || type == OptionalLong.class || type == OptionalDouble.class;
            if (param != null && !param.required() && !optional) {
                if (parameter.getType().isPrimitive()) {
                    throw new IllegalArgumentException(owner + ", parameter " + argument + ": a primitive cannot be left"
                            + " out; use its box type or Optional");
                }
                notRequired.add(argument);
            }
            elements.add(new JsonSchemas.Element(argument, type, about, null));
            slots.add(new Slot(argument, MAPPER.getTypeFactory().constructType(type), false,
                    optional || notRequired.contains(argument)));
        }
        ObjectNode schema = JsonSchemas.forParameters(method.getDeclaringClass(), owner, elements, null);
        if (schema.get("required") instanceof ArrayNode required) {
            for (int i = required.size() - 1; i >= 0; i--) {
                if (notRequired.contains(required.get(i).asString())) {
                    required.remove(i);
                }
            }
            if (required.isEmpty()) {
                schema.remove("required");
            }
        }
        this.schema = FrozenJson.freeze(schema);
        method.setAccessible(true);     // a public method of a class that is not public
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public JsonNode inputSchema() {
        return schema;
    }

    /** The arguments are checked here, as a typed tool checks them. */
    @Override
    public boolean validatesArguments() {
        return true;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception {
        JsonNode checked = ArgumentValidator.validate(name, schema,
                arguments == null ? MAPPER.createObjectNode() : arguments);
        Object[] values = new Object[slots.size()];
        for (int i = 0; i < values.length; i++) {
            Slot slot = slots.get(i);
            if (slot.context()) {
                values[i] = context;
                continue;
            }
            JsonNode value = checked.get(slot.name());
            try {
                // A left-out Optional is empty (Jackson reads null so); any other is null.
                values[i] = value == null || value.isNull()
                        ? slot.optional() ? Jackson.ARGUMENTS.forType(slot.type()).readValue("null") : null
                        : Jackson.ARGUMENTS.forType(slot.type()).readValue(value);
            } catch (JacksonException | IllegalArgumentException e) {
                throw new InvalidArgumentsException(name, List.of(new ArgumentProblem(slot.name(),
                        "does not fit the expected type")), SchemaSummary.of(schema));
            }
        }
        Object result;
        try {
            result = method.invoke(target, values);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
        return result instanceof ToolResult<?> given ? given : ToolResult.of(result);
    }

    @Override
    public String toString() {
        return "MethodTool[" + name + "]";
    }
}
