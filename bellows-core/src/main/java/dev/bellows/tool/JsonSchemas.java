package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.FrozenJson;
import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * JSON Schemas generated from Java records, so that a tool's arguments are declared once, as
 * a record, and never as a hand-written schema.
 *
 * <p>{@link #forRecord} maps each component to a property, in component order:
 * <ul>
 *   <li>{@code String} to {@code string}; {@code int}, {@code long}, {@code short},
 *       {@code byte}, their boxes and {@code BigInteger} to {@code integer}; {@code double},
 *       {@code float}, their boxes and {@code BigDecimal} to {@code number}; {@code boolean}
 *       and {@code Boolean} to {@code boolean};</li>
 *   <li>an enum to a {@code string} with an {@code enum} of its constants' names, or of their
 *       {@code @JsonProperty} names where given (so that the schema says what Jackson binds);</li>
 *   <li>{@code List}, {@code Set}, {@code Collection} and arrays to an {@code array} with
 *       {@code items}; {@code Map<String, T>} to an {@code object} whose
 *       {@code additionalProperties} is the schema of {@code T};</li>
 *   <li>a record to a nested object schema, generated the same way;</li>
 *   <li>{@code Optional<T>}, {@code OptionalInt}, {@code OptionalLong} and
 *       {@code OptionalDouble} to the schema of the contained type, and the property is not
 *       {@code required}. Every other component is required.</li>
 * </ul>
 * Objects generated from records have {@code "additionalProperties": false}, so that a
 * misspelt argument is reported instead of silently ignored. {@link Description} gives
 * descriptions, and {@code @JsonProperty} on a component renames its property.
 *
 * <p>Anything else (Object, raw types, wildcards, type variables, maps with keys that are
 * not strings, a record that contains itself) is refused with an
 * {@link IllegalArgumentException} that names the record, the component and what to use
 * instead: a schema the model cannot fill in correctly is a bug to fix at startup.
 */
public final class JsonSchemas {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final String SUPPORTED = "String, a number, boolean, an enum, a record, "
            + "List<T>, Set<T>, an array, Map<String, T> or Optional<T>";

    private JsonSchemas() {
    }

    /**
     * The JSON Schema of a record's components, as
     * {@code {"type":"object","properties":{...},"required":[...],"additionalProperties":false}}.
     * The result is frozen (read-only: its mutators throw {@link UnsupportedOperationException});
     * {@link JsonNode#deepCopy()} gives a copy to extend.
     *
     * @throws IllegalArgumentException when a component's type has no JSON Schema mapping
     */
    public static JsonNode forRecord(Class<? extends Record> type) {
        if (!type.isRecord()) {
            // Reachable through raw types and casts only, but then the message should still help.
            throw new IllegalArgumentException(type.getName() + " is not a record; declare the arguments as a record");
        }
        return FrozenJson.freeze(new Generator(type).record(type));
    }

    /** A property to generate: a record component, or a method parameter ({@code component} null). */
    record Element(String name, Type type, String description, RecordComponent component) {
    }

    /**
     * The object schema of a method's parameters, for tools made from annotated methods: the
     * same mapping as {@link #forRecord}, each parameter a property.
     *
     * @param owner what the messages name, e.g. {@code method Weather.forecast}
     */
    static ObjectNode forParameters(Class<?> type, String owner, List<Element> parameters, String description) {
        ObjectNode schema = NODES.objectNode();
        schema.put("type", "object");
        if (description != null) {
            schema.put("description", description);
        }
        new Generator(type, owner).properties(schema, parameters);
        return schema;
    }

    /** One generation: knows its root, for messages, and the records it is inside of. */
    private static final class Generator {

        private final Class<?> root;
        private final Deque<Class<?>> enclosing = new ArrayDeque<>();
        private final String rootKind;
        private RecordComponent component;
        private String element;         // a method parameter's name, when generating for a method

        Generator(Class<?> root) {
            this(root, "record " + root.getSimpleName());
        }

        Generator(Class<?> root, String rootKind) {
            this.root = root;
            this.rootKind = rootKind;
        }

        ObjectNode record(Class<?> type) {
            if (enclosing.contains(type)) {
                throw new IllegalArgumentException(prefix() + "record " + type.getSimpleName()
                        + " contains itself (" + cycle(type) + "); the model cannot write recursive arguments"
                        + " from a schema without an end, so give the nested level its own record type");
            }
            enclosing.push(type);
            RecordComponent outer = component;
            ObjectNode schema = NODES.objectNode();
            schema.put("type", "object");
            description(type.getAnnotation(Description.class), schema);
            List<Element> elements = new ArrayList<>();
            for (RecordComponent each : type.getRecordComponents()) {
                Description described = each.getAnnotation(Description.class);
                elements.add(new Element(propertyName(each), each.getGenericType(),
                        described == null ? null : described.value(), each));
            }
            properties(schema, elements);
            component = outer;
            enclosing.pop();
            return schema;
        }

        /** Properties for the elements (record components or method parameters), in order; Optional ones not required. */
        void properties(ObjectNode schema, List<Element> elements) {
            ObjectNode properties = schema.putObject("properties");
            ArrayNode required = NODES.arrayNode();
            for (Element each : elements) {
                component = each.component();
                element = each.name();
                boolean optional = isOptional(each.type());
                ObjectNode property = optional ? optionalContent(each.type()) : schema(each.type());
                properties.set(each.name(), each.description() == null
                        ? property : withDescription(property, each.description()));
                if (!optional) {
                    required.add(each.name());
                }
            }
            element = null;
            if (!required.isEmpty()) {
                schema.set("required", required);
            }
            schema.put("additionalProperties", false);
        }

        private ObjectNode schema(Type type) {
            if (type instanceof Class<?> cls) {
                return classSchema(cls);
            }
            if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
                Type[] arguments = parameterized.getActualTypeArguments();
                if (raw == List.class || raw == Set.class || raw == Collection.class) {
                    return array(element(arguments[0], raw.getSimpleName()));
                }
                if (raw == Map.class) {
                    if (arguments[0] != String.class) {
                        throw unsupported(type, "JSON object keys are strings; use Map<String, "
                                + arguments[1].getTypeName() + "> and convert the keys in the handler");
                    }
                    ObjectNode schema = NODES.objectNode();
                    schema.put("type", "object");
                    schema.set("additionalProperties", schema(element(arguments[1], "Map")));
                    return schema;
                }
                if (isOptional(raw)) {
                    throw unsupported(type, "Optional is only allowed as the type of a component itself,"
                            + " not inside another type; use " + arguments[0].getTypeName() + " here");
                }
                throw unsupported(type, "use " + SUPPORTED);
            }
            if (type instanceof GenericArrayType array) {
                return array(array.getGenericComponentType());
            }
            if (type instanceof WildcardType) {
                throw unsupported(type, "use a concrete type instead of a wildcard");
            }
            if (type instanceof TypeVariable<?>) {
                throw unsupported(type, "a type variable has no schema; use a concrete type");
            }
            throw unsupported(type, "use " + SUPPORTED);
        }

        /** An element type of a collection or map, which must not be a wildcard. */
        private Type element(Type argument, String container) {
            if (argument instanceof WildcardType wildcard) {
                Type[] upper = wildcard.getUpperBounds();
                String instead = upper.length == 1 && upper[0] != Object.class
                        ? upper[0].getTypeName() : "a concrete element type";
                throw unsupported(wildcard, "wildcards have no schema; use " + container + "<" + instead + ">");
            }
            return argument;
        }

        private ObjectNode classSchema(Class<?> cls) {
            if (cls == String.class) {
                return typed("string");
            }
            if (cls == int.class || cls == long.class || cls == short.class || cls == byte.class
                    || cls == Integer.class || cls == Long.class || cls == Short.class || cls == Byte.class
                    || cls == BigInteger.class) {
                return typed("integer");
            }
            if (cls == double.class || cls == float.class || cls == Double.class || cls == Float.class
                    || cls == BigDecimal.class) {
                return typed("number");
            }
            if (cls == boolean.class || cls == Boolean.class) {
                return typed("boolean");
            }
            if (cls.isEnum()) {
                ObjectNode schema = typed("string");
                ArrayNode values = schema.putArray("enum");
                for (Object constant : cls.getEnumConstants()) {
                    values.add(enumName((Enum<?>) constant));
                }
                return schema;
            }
            if (cls.isRecord()) {
                return record(cls);
            }
            if (cls.isArray()) {
                if (cls == byte[].class) {
                    // Jackson reads byte[] from a base64 string, not from an array of numbers.
                    throw unsupported(cls, "Jackson reads byte[] as base64 text; use String (base64) "
                            + "or List<Integer>");
                }
                return array(cls.getComponentType());
            }
            if (cls == List.class || cls == Set.class || cls == Collection.class || cls == Map.class) {
                throw unsupported(cls, "a raw " + cls.getSimpleName() + " does not say what it holds; use "
                        + (cls == Map.class ? "Map<String, T>" : cls.getSimpleName() + "<T>") + " with a concrete T");
            }
            if (cls == Optional.class) {
                throw unsupported(cls, "a raw Optional does not say what it holds; use Optional<T> with a concrete T");
            }
            if (isOptional(cls)) {
                throw unsupported(cls, "Optional is only allowed as the type of a component itself,"
                        + " not inside another type");
            }
            if (cls == char.class || cls == Character.class) {
                throw unsupported(cls, "use String");
            }
            if (cls == Object.class) {
                throw unsupported(cls, "Object says nothing the model can follow; use " + SUPPORTED);
            }
            throw unsupported(cls, "use " + SUPPORTED
                    + " (for other types, take a String and convert it in the handler)");
        }

        private ObjectNode array(Type items) {
            ObjectNode schema = typed("array");
            schema.set("items", schema(items));
            return schema;
        }

        /** The schema of what a component of an Optional type holds. */
        private ObjectNode optionalContent(Type type) {
            if (type == OptionalInt.class || type == OptionalLong.class) {
                return typed("integer");
            }
            if (type == OptionalDouble.class) {
                return typed("number");
            }
            if (type instanceof ParameterizedType parameterized) {
                Type content = element(parameterized.getActualTypeArguments()[0], "Optional");
                if (isOptional(content)) {
                    throw unsupported(type, "an Optional inside an Optional means nothing more; use "
                            + content.getTypeName());
                }
                return schema(content);
            }
            throw unsupported(type, "a raw Optional does not say what it holds; use Optional<T> with a concrete T");
        }

        private IllegalArgumentException unsupported(Type type, String instead) {
            return new IllegalArgumentException(prefix() + "type " + type.getTypeName()
                    + " has no JSON Schema mapping; " + instead);
        }

        /** Names the root record and the component being generated, for every message. */
        private String prefix() {
            String where = component != null
                    ? ", component " + component.getDeclaringRecord().getSimpleName() + "." + component.getName()
                    : element != null ? ", parameter " + element : "";
            return "cannot generate the JSON Schema of " + rootKind + where + ": ";
        }

        private String cycle(Class<?> type) {
            List<Class<?>> path = List.copyOf(enclosing).reversed();
            int start = path.indexOf(type);
            return path.subList(start, path.size()).stream().map(Class::getSimpleName)
                    .collect(Collectors.joining(" -> ")) + " -> " + type.getSimpleName();
        }
    }

    private static ObjectNode typed(String type) {
        ObjectNode schema = NODES.objectNode();
        schema.put("type", type);
        return schema;
    }

    private static void description(Description description, ObjectNode schema) {
        if (description != null) {
            schema.put("description", description.value());
        }
    }

    /** A copy with {@code description} second, right after {@code type}, where people look for it. */
    private static ObjectNode withDescription(ObjectNode schema, String description) {
        ObjectNode result = NODES.objectNode();
        result.set("type", schema.get("type"));
        result.put("description", description);
        schema.properties().forEach(entry -> {
            if (!entry.getKey().equals("type") && !entry.getKey().equals("description")) {
                result.set(entry.getKey(), entry.getValue());
            }
        });
        return result;
    }

    private static boolean isOptional(Type type) {
        Type raw = type instanceof ParameterizedType parameterized ? parameterized.getRawType() : type;
        return raw == Optional.class || raw == OptionalInt.class || raw == OptionalLong.class
                || raw == OptionalDouble.class;
    }

    /** The property name Jackson binds the component by: its {@code @JsonProperty} name, if any. */
    static String propertyName(RecordComponent component) {
        // @JsonProperty cannot target a record component; javac copies it to the accessor.
        JsonProperty renamed = component.getAccessor().getAnnotation(JsonProperty.class);
        if (renamed == null) {
            try {
                renamed = component.getDeclaringRecord().getDeclaredField(component.getName())
                        .getAnnotation(JsonProperty.class);
            } catch (NoSuchFieldException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
        return renamed == null || renamed.value().isEmpty() ? component.getName() : renamed.value();
    }

    /** The name Jackson reads and writes an enum constant as. */
    static String enumName(Enum<?> constant) {
        try {
            JsonProperty renamed = constant.getDeclaringClass().getField(constant.name())
                    .getAnnotation(JsonProperty.class);
            return renamed == null || renamed.value().isEmpty() ? constant.name() : renamed.value();
        } catch (NoSuchFieldException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
