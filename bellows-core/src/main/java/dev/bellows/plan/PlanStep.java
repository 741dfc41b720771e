package dev.bellows.plan;

import java.util.Objects;

/**
 * One step of a {@link Plan}.
 *
 * @param description what the step does, in a short sentence
 * @param status      where it stands
 */
public record PlanStep(String description, PlanStatus status) {

    public PlanStep {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(status, "status");
    }

    /** The step as a checklist line: {@code [>] Run the tests}. */
    @Override
    public String toString() {
        return status.checkbox() + " " + description;
    }
}
