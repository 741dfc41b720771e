package dev.bellows.mcp;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.Objects;

/** How the user answered an elicitation: accepted with content, declined, or cancelled. */
public sealed interface ElicitationResult {

    /**
     * Accepted: the fields the user gave (defaults are added for the others).
     *
     * @param content a JSON object, frozen (read-only; a copy unless frozen already)
     */
    record Accept(JsonNode content) implements ElicitationResult {
        public Accept {
            if (!Objects.requireNonNull(content, "content").isObject()) {
                throw new IllegalArgumentException("content must be a JSON object, not " + content.getNodeType());
            }
            content = FrozenJson.freeze(content);
        }
    }

    /** Declined: the user said no. */
    record Decline() implements ElicitationResult {
    }

    /** Cancelled: the user dismissed the question without choosing (Ctrl-C). */
    record Cancel() implements ElicitationResult {
    }
}
