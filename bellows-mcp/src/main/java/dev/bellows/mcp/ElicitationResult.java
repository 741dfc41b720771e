package dev.bellows.mcp;

import tools.jackson.databind.node.ObjectNode;
import java.util.Objects;

/** How the user answered an elicitation: accepted with content, declined, or cancelled. */
public sealed interface ElicitationResult {

    /** Accepted: the fields the user gave (defaults are added for the others). */
    record Accept(ObjectNode content) implements ElicitationResult {
        public Accept {
            content = Objects.requireNonNull(content, "content").deepCopy();
        }
    }

    /** Declined: the user said no. */
    record Decline() implements ElicitationResult {
    }

    /** Cancelled: the user dismissed the question without choosing (Ctrl-C). */
    record Cancel() implements ElicitationResult {
    }
}
