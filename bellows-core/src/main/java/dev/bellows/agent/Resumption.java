package dev.bellows.agent;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What a {@link ResumableTool} is carried on with: the state its {@link ToolSuspended} kept, the
 * decisions on its waiting calls, and its notes. Given by the loop; used by the one thread that
 * runs the resume.
 */
public interface Resumption {

    /** The state the suspension kept, frozen (read-only: its mutators throw; {@link JsonNode#deepCopy()} to edit). */
    JsonNode state();

    /** One decision per waiting call of the suspension, with the tool's own ids, in call order. */
    List<Decision> decisions();

    /**
     * What earlier attempts of this same resume {@linkplain #note noted}, in order: not empty only
     * when an attempt was cut short (the process died) before the call's outcome was stored.
     */
    List<JsonNode> notes();

    /**
     * Keeps {@code note} with the session's waiting run before it returns (a stored session:
     * stored), for a later attempt of this resume should this one be cut short. Must hold no
     * secret.
     */
    void note(JsonNode note);
}
