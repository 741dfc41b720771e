package dev.bellows.prompt.internal;

import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The prompt texts of the loop when the model calls tools through the API's own tool calling
 * ({@code dev.bellows.agent.ToolMode#NATIVE}): the tools travel in the request, so the system
 * message holds only the instructions, the loop's rules and the current plan, far shorter than
 * the tag protocol's. Immutable and safe to share between threads.
 */
public final class NativePrompts {

    private static final PromptTemplate LOOP = PromptTemplate.load("native_loop");
    private static final PromptTemplate NO_TOOL_CALL = PromptTemplate.load("native_no_tool_call");
    private static final PromptTemplate CURRENT_PLAN = PromptTemplate.load("current_plan");

    private final String instructions;
    /** The system message without a plan, the same on every call until the model writes one. */
    private final Message withoutPlan;
    private final String reminder;

    public NativePrompts(String instructions) {
        this.instructions = Objects.requireNonNull(instructions, "instructions").strip();
        this.withoutPlan = render(null);
        this.reminder = NO_TOOL_CALL.render(Map.of());
    }

    /** The instructions, the loop's rules, then the plan as a checklist when it has steps. */
    public Message systemMessage(Plan plan) {
        return plan == null || plan.steps().isEmpty() ? withoutPlan : render(plan);
    }

    private Message render(Plan plan) {
        List<String> parts = new ArrayList<>();
        if (!instructions.isEmpty()) {
            parts.add(instructions);
        }
        parts.add(LOOP.render(Map.of()));
        if (plan != null && !plan.steps().isEmpty()) {
            parts.add(CURRENT_PLAN.render(Map.of("checklist", plan.toChecklist())));
        }
        return Message.system(String.join("\n\n", parts));
    }

    /** Sent (as a user message) after an answer without a tool call. */
    public String noToolCallReminder() {
        return reminder;
    }
}
