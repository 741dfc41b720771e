package dev.bellows.tool;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Binds checked arguments to a record of plain components (strings, ints, longs, booleans,
 * and {@code Optional}s of them) by calling its constructor directly, without Jackson's
 * deserialization context, tree parser and property buffer per call (about 340 bytes of the 380
 * a bind took). It binds only what it is sure Jackson binds the same way: a value of exactly
 * the component's JSON kind (an int node for an int, a string for a string), every component
 * present or an absent {@code Optional}, no property the record does not have. Anything else
 * (a null, a number to convert, an unknown property) it leaves to Jackson ({@link #bind}
 * answers null), and so every error and every coercion stays Jackson's. A constructor that
 * refuses the values is left to Jackson too, which calls it again for its error.
 *
 * <p>Only for records Jackson would bind through the canonical constructor without anything
 * of its own: no Jackson annotation on the record, its components or its constructors, one
 * constructor, callable (made accessible, as the mapper does). Immutable and thread-safe.
 */
final class DirectBinding<R extends Record> {

    private enum Kind { STRING, INT, LONG, BOOLEAN }

    private final Constructor<R> constructor;
    private final String[] names;
    private final Kind[] kinds;
    private final boolean[] optional;

    private DirectBinding(Constructor<R> constructor, String[] names, Kind[] kinds, boolean[] optional) {
        this.constructor = constructor;
        this.names = names;
        this.kinds = kinds;
        this.optional = optional;
    }

    /** The binding of this record, or null when Jackson must bind it (components or annotations beyond plain). */
    static <R extends Record> DirectBinding<R> of(Class<R> type) {
        RecordComponent[] components = type.getRecordComponents();
        if (components == null || components.length == 0 || type.getDeclaredConstructors().length != 1
                || hasJackson(type)) {
            return null;
        }
        String[] names = new String[components.length];
        Kind[] kinds = new Kind[components.length];
        boolean[] optional = new boolean[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent component = components[i];
            if (hasJackson(component) || hasJackson(component.getAccessor())) {
                return null;
            }
            names[i] = component.getName();
            types[i] = component.getType();
            Type generic = component.getGenericType();
            if (component.getType() == Optional.class) {
                optional[i] = true;
                generic = generic instanceof ParameterizedType parameterized ? parameterized.getActualTypeArguments()[0] : null;
                kinds[i] = generic instanceof Class<?> inner ? kind(inner, true) : null;
            } else {
                kinds[i] = kind(component.getType(), false);
            }
            if (kinds[i] == null) {
                return null;
            }
        }
        try {
            Constructor<R> constructor = type.getDeclaredConstructor(types);
            if (hasJackson(constructor) || !(constructor.canAccess(null) || constructor.trySetAccessible())) {
                return null;
            }
            for (Parameter parameter : constructor.getParameters()) {
                if (hasJackson(parameter)) {
                    return null;
                }
            }
            return new DirectBinding<>(constructor, names, kinds, optional);
        } catch (NoSuchMethodException | SecurityException e) {
            return null;
        }
    }

    private static Kind kind(Class<?> type, boolean boxedOnly) {
        if (type == String.class) {
            return Kind.STRING;
        }
        if (type == Integer.class || type == int.class && !boxedOnly) {
            return Kind.INT;
        }
        if (type == Long.class || type == long.class && !boxedOnly) {
            return Kind.LONG;
        }
        if (type == Boolean.class || type == boolean.class && !boxedOnly) {
            return Kind.BOOLEAN;
        }
        return null;
    }

    private static boolean hasJackson(AnnotatedElement element) {
        for (Annotation annotation : element.getAnnotations()) {
            String name = annotation.annotationType().getName();
            if (name.startsWith("com.fasterxml.jackson.") || name.startsWith("tools.jackson.")) {
                return true;
            }
        }
        return false;
    }

    /** The record, or null when Jackson must bind these arguments (a constructor's exception included). */
    R bind(JsonNode arguments) {
        if (!arguments.isObject()) {
            return null;
        }
        Object[] values = new Object[names.length];
        int present = 0;
        for (int i = 0; i < names.length; i++) {
            JsonNode node = arguments.get(names[i]);
            if (node == null) {
                if (!optional[i]) {
                    return null;
                }
                values[i] = Optional.empty();
                continue;
            }
            present++;
            Object value = value(kinds[i], node);
            if (value == null) {
                return null;
            }
            values[i] = optional[i] ? Optional.of(value) : value;
        }
        if (present != arguments.size()) {
            return null; // a property the record does not have: Jackson's to refuse
        }
        try {
            return constructor.newInstance(values);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    private static Object value(Kind kind, JsonNode node) {
        return switch (kind) {
            case STRING -> node.isString() ? node.stringValue() : null;
            case INT -> node.isInt() ? (Object) node.intValue() : null;
            case LONG -> node.isInt() || node.isLong() ? (Object) node.longValue() : null;
            case BOOLEAN -> node.isBoolean() ? (Object) node.booleanValue() : null;
        };
    }
}
