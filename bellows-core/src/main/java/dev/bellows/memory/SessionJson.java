package dev.bellows.memory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.bellows.plan.Plan;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The JSON forms session stores keep a plan and metadata in, so that every store writes the
 * same text: a plan is {@code {"steps": [{"description": ..., "status": "pending"}]}} (as the
 * {@code update_plan} tool takes it), metadata a flat object of strings.
 */
public final class SessionJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() { };

    private SessionJson() {
    }

    /** The plan as JSON. */
    public static String planToJson(Plan plan) {
        return write(Objects.requireNonNull(plan, "plan"));
    }

    /**
     * The plan from its JSON form.
     *
     * @throws SessionStoreException when the text is not a plan (a damaged or foreign database)
     */
    public static Plan planFromJson(String json) {
        try {
            Plan plan = MAPPER.readValue(json, Plan.class);
            if (plan == null || plan.steps().stream().anyMatch(Objects::isNull)) {
                throw new SessionStoreException("stored plan is not a plan: " + abbreviate(json));
            }
            return plan;
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            throw new SessionStoreException("stored plan is not a plan: " + abbreviate(json), e);
        }
    }

    /** The metadata as a JSON object, keys sorted. */
    public static String metadataToJson(Map<String, String> metadata) {
        return write(new TreeMap<>(Objects.requireNonNull(metadata, "metadata")));
    }

    /**
     * The metadata from its JSON form.
     *
     * @throws SessionStoreException when the text is not an object of strings
     */
    public static Map<String, String> metadataFromJson(String json) {
        try {
            Map<String, String> map = MAPPER.readValue(json, STRING_MAP);
            if (map == null || map.containsValue(null)) {
                throw new SessionStoreException("stored metadata is not an object of strings: " + abbreviate(json));
            }
            return Map.copyOf(map);
        } catch (JsonProcessingException e) {
            throw new SessionStoreException("stored metadata is not an object of strings: " + abbreviate(json), e);
        }
    }

    /**
     * Checks metadata entries a caller wants to store, and copies them.
     *
     * @throws IllegalArgumentException for a null or blank key or a null value
     */
    public static Map<String, String> checkMetadata(Map<String, String> entries) {
        Objects.requireNonNull(entries, "entries");
        Map<String, String> copy = new TreeMap<>();
        entries.forEach((key, value) -> {
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("a metadata key must not be null or blank");
            }
            if (value == null) {
                throw new IllegalArgumentException("metadata \"" + key + "\" has no value (null)");
            }
            copy.put(key, value);
        });
        return copy;
    }

    private static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "(null)";
        }
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
