package dev.bellows.memory.internal;

import dev.bellows.json.internal.Jackson;
import dev.bellows.memory.SessionStoreException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.SignedThinking;
import dev.bellows.tool.Media;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The JSON forms session stores keep a plan and metadata in, so that every store writes the
 * same text: a plan is {@code {"steps": [{"description": ..., "status": "pending"}]}} (as the
 * {@code update_plan} tool takes it), metadata a flat object of strings, and what a message
 * carries beside its role and text (native tool calls, the id of the call a tool message
 * answers, signed thinking, media) {@code {"tool_calls": [{"id", "name", "arguments"}],
 * "tool_call_id": ..., "thinking": [{"thinking", "signature" | "redacted_data"}],
 * "media": [{"media_type", "data"}]}} (the data in Base64), or nothing for a plain text
 * message.
 */
public final class SessionJson {

    private static final ObjectMapper MAPPER = Jackson.JSON;
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
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
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
        } catch (JacksonException e) {
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

    /**
     * What {@code message} carries beside its role and text, as JSON; null when nothing (a
     * plain text message), so that stores keep such messages as they always did.
     */
    public static String nativePartsToJson(Message message) {
        if (message.toolCalls().isEmpty() && message.toolCallId() == null && message.thinking().isEmpty()
                && message.media().isEmpty()) {
            return null;
        }
        ObjectNode parts = MAPPER.createObjectNode();
        if (!message.toolCalls().isEmpty()) {
            ArrayNode calls = parts.putArray("tool_calls");
            for (NativeToolCall call : message.toolCalls()) {
                calls.addObject().put("id", call.id()).put("name", call.name()).put("arguments", call.arguments());
            }
        }
        if (message.toolCallId() != null) {
            parts.put("tool_call_id", message.toolCallId());
        }
        if (!message.thinking().isEmpty()) {
            ArrayNode blocks = parts.putArray("thinking");
            for (SignedThinking block : message.thinking()) {
                ObjectNode node = blocks.addObject().put("thinking", block.thinking());
                if (block.isRedacted()) {
                    node.put("redacted_data", block.redactedData());
                } else {
                    node.put("signature", block.signature());
                }
            }
        }
        if (!message.media().isEmpty()) {
            ArrayNode media = parts.putArray("media");
            for (Media medium : message.media()) {
                media.addObject().put("media_type", medium.mediaType()).put("data", medium.base64());
            }
        }
        return parts.toString();
    }

    /**
     * The message a store kept: its role, its text and, unless null, its
     * {@linkplain #nativePartsToJson native parts}.
     *
     * @throws SessionStoreException when the parts are not what {@link #nativePartsToJson} writes
     */
    public static Message message(Role role, String content, String nativeParts) {
        if (nativeParts == null) {
            return new Message(role, content);
        }
        try {
            JsonNode parts = MAPPER.readTree(nativeParts);
            List<NativeToolCall> calls = new ArrayList<>();
            for (JsonNode call : parts.path("tool_calls")) {
                calls.add(new NativeToolCall(call.get("id").asString(), call.get("name").asString(),
                        call.get("arguments").asString()));
            }
            List<SignedThinking> thinking = new ArrayList<>();
            for (JsonNode block : parts.path("thinking")) {
                thinking.add(block.has("redacted_data") ? SignedThinking.redacted(block.get("redacted_data").asString())
                        : SignedThinking.signed(block.get("thinking").asString(), block.get("signature").asString()));
            }
            List<Media> media = new ArrayList<>();
            for (JsonNode medium : parts.path("media")) {
                media.add(new Media(medium.get("media_type").asString(), Base64.getDecoder().decode(medium.get("data").asString())));
            }
            JsonNode callId = parts.get("tool_call_id");
            return new Message(role, content, calls, callId == null ? null : callId.asString(), thinking, media);
        } catch (RuntimeException e) {
            throw new SessionStoreException("a stored " + role.wireName() + " message's tool calls, thinking or media are"
                    + " damaged: " + abbreviate(nativeParts), e);
        }
    }

    private static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JacksonException e) {
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
