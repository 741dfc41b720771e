package dev.bellows.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Tag attributes keep the order they were written in, and cannot change once in an event. */
final class Attributes {

    private Attributes() {
    }

    static Map<String, String> freeze(Map<String, String> attributes) {
        if (attributes == null || attributes.isEmpty()) {
            return Map.of();
        }
        if (attributes.getClass() == UNMODIFIABLE_CLASS) {
            return attributes;
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    private static final Class<?> UNMODIFIABLE_CLASS = Collections.unmodifiableMap(new LinkedHashMap<>()).getClass();
}
