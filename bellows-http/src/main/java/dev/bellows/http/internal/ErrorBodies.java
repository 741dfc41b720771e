package dev.bellows.http.internal;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Finds the provider's own error message in an error response body.
 *
 * <p>Shapes understood, first match wins:
 * <ul>
 *   <li>{@code {"error": {"message": "..."}}}: OpenAI and compatible servers, and Anthropic
 *       ({@code {"type": "error", "error": {"type": "...", "message": "..."}}})</li>
 *   <li>{@code {"error": "..."}}: Ollama, llama.cpp server</li>
 *   <li>{@code {"message": "..."}}</li>
 *   <li>{@code {"detail": "..."}} or a FastAPI-style {@code {"detail": [{"msg": "..."}]}} (vLLM)</li>
 *   <li>anything else: the trimmed body, cut to about 300 characters</li>
 * </ul>
 */
public final class ErrorBodies {

    static final int MAX_LENGTH = 300;
    private static final ObjectMapper JSON = Jackson.JSON;

    private ErrorBodies() {
    }

    /** The message to show for an error body; empty for an empty or null body. */
    public static String message(String body) {
        if (body == null) {
            return "";
        }
        String trimmed = body.strip();
        if (trimmed.startsWith("{")) {
            try {
                String found = fromJson(JSON.readTree(trimmed));
                if (found != null && !found.isBlank()) {
                    return cut(found.strip());
                }
            } catch (JacksonException notJson) {
                // fall through to the raw body
            }
        }
        return cut(trimmed);
    }

    private static String fromJson(JsonNode root) {
        JsonNode error = root.path("error");
        if (error.isObject()) {
            String message = text(error.path("message"));
            if (message != null) {
                return message;
            }
        } else if (error.isString()) {
            return error.asString();
        }
        String message = text(root.path("message"));
        if (message != null) {
            return message;
        }
        JsonNode detail = root.path("detail");
        if (detail.isString()) {
            return detail.asString();
        }
        if (detail.isArray() && !detail.isEmpty()) {
            String msg = text(detail.get(0).path("msg"));
            if (msg != null) {
                return msg;
            }
        }
        if (!detail.isMissingNode() && !detail.isNull()) {
            return detail.toString();
        }
        return null;
    }

    private static String text(JsonNode node) {
        return node.isString() && !node.asString().isBlank() ? node.asString() : null;
    }

    private static String cut(String text) {
        if (text.length() <= MAX_LENGTH) {
            return text;
        }
        int end = MAX_LENGTH;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + "…";
    }
}
