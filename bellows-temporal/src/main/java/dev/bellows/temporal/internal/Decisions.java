package dev.bellows.temporal.internal;

import java.util.List;

/**
 * A person's decisions on the tool calls a durable run waits on, as the {@code decide} update
 * carries them to the workflow.
 *
 * @param decisions one for each waiting call
 */
public record Decisions(List<Decided> decisions) {

    public Decisions {
        decisions = List.copyOf(decisions);
    }

    /**
     * One decision.
     *
     * @param id        the waiting call's id, as its {@code approval_required} event gave it
     * @param approved  true to run the call, false to deny it
     * @param reason    why it was denied (the model reads it), or null
     * @param arguments the arguments an approved call runs with instead of the model's, as a JSON
     *                  object's text; null for the model's (and in the histories of runs
     *                  decided before decisions could carry them)
     */
    public record Decided(String id, boolean approved, String reason, String arguments) {
    }
}
