package dev.bellows.plan;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where a {@link PlanStep} stands. In JSON (the {@code update_plan} tool's arguments, the
 * {@code plan_update} event) the values are written in lower case, as the CLI spec writes
 * them: {@code pending}, {@code in_progress}, {@code completed}.
 */
public enum PlanStatus {

    /** Not started. */
    @JsonProperty("pending")
    PENDING("[ ]"),

    /** Being worked on now; normally one step at a time. */
    @JsonProperty("in_progress")
    IN_PROGRESS("[>]"),

    /** Done. */
    @JsonProperty("completed")
    COMPLETED("[x]");

    private final String checkbox;

    PlanStatus(String checkbox) {
        this.checkbox = checkbox;
    }

    /** The checklist box: {@code [ ]}, {@code [>]} or {@code [x]}. */
    public String checkbox() {
        return checkbox;
    }
}
