package dev.bellows.plan;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The agent's plan for a task: steps in order, each with a status. The model writes it with
 * the {@code update_plan} tool, which replaces the whole plan each time; the agent shows it to
 * the model on every later iteration ({@link #toChecklist()}) and announces each new one in a
 * {@code plan_update} event. In JSON it is {@code {"steps": [{"description": ..., "status": ...}]}}.
 *
 * @param steps the steps, in order; possibly none
 */
public record Plan(List<PlanStep> steps) {

    private static final Plan EMPTY = new Plan(List.of());

    public Plan {
        steps = List.copyOf(Objects.requireNonNull(steps, "steps"));
    }

    /** The plan before the model has written one. */
    public static Plan empty() {
        return EMPTY;
    }

    /**
     * The plan as a checklist for a prompt or a terminal, one step a line:
     * <pre>
     * [x] Read the failing test
     * [>] Fix the parser
     * [ ] Run the whole suite
     * </pre>
     * Empty for a plan without steps.
     */
    public String toChecklist() {
        return steps.stream().map(PlanStep::toString).collect(Collectors.joining("\n"));
    }
}
