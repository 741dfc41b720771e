package dev.bellows.tool;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStep;
import java.util.List;
import java.util.Optional;

/**
 * The built-in tools of server {@code local} (the CLI spec's table): three that end the agent
 * loop ({@link ToolEffect.EndRun}, their text as output), and {@code update_plan}, which
 * replaces the plan ({@link ToolEffect.ReplacePlan}, the new {@link Plan} as output).
 *
 * <p>Each is an ordinary {@link TypedTool}, a record and a lambda, written as a user would
 * write one. All of them only build a value, so they are safe to run in parallel; it is the
 * agent loop that acts on their results' effects.
 */
public final class BuiltinTools {

    /** Ends the loop with the answer. */
    public static final String TASK_COMPLETION = "task_completion";
    /** Ends the loop with a question for the user. */
    public static final String ASK_QUESTION = "ask_question";
    /** Ends the loop with a conversational reply. */
    public static final String CONVERSE = "converse";
    /** Replaces the plan. */
    public static final String UPDATE_PLAN = "update_plan";

    // The descriptions are sent on every request (in the prompt's catalog or as native tool
    // entries), so each says once what the tool is for; the argument names say the rest.

    record TaskCompletionArguments(String result) {
    }

    record AskQuestionArguments(String question, Optional<List<String>> suggestions) {
    }

    record ConverseArguments(String message) {
    }

    record UpdatePlanArguments(List<PlanStep> steps) {
    }

    private static final TypedTool<TaskCompletionArguments, String> TASK_COMPLETION_TOOL =
            TypedTool.builder(TASK_COMPLETION, TaskCompletionArguments.class)
                    .description("Ends the loop with the final answer: all the user gets (text outside calls is not"
                            + " the answer).")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.endingRun(LoopEndReason.TASK_COMPLETION, arguments.result()))
                    .build();

    private static final TypedTool<AskQuestionArguments, String> ASK_QUESTION_TOOL =
            TypedTool.builder(ASK_QUESTION, AskQuestionArguments.class)
                    .description("Ends the loop to ask what only the user knows (not what tools can find out).")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> new ToolResult<>(arguments.question(), List.of(),
                            new ToolEffect.EndRun(LoopEndReason.ASK_QUESTION, arguments.question(),
                                    arguments.suggestions().orElse(List.of()))))
                    .build();

    private static final TypedTool<ConverseArguments, String> CONVERSE_TOOL =
            TypedTool.builder(CONVERSE, ConverseArguments.class)
                    .description("Ends the loop with a reply to a message that asks no task (greeting, small talk).")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.endingRun(LoopEndReason.CONVERSE, arguments.message()))
                    .build();

    private static final TypedTool<UpdatePlanArguments, Plan> UPDATE_PLAN_TOOL =
            TypedTool.builder(UPDATE_PLAN, UpdatePlanArguments.class)
                    .description("Replaces the whole plan of a task of several steps; it is shown in every later"
                            + " message.")
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.replacingPlan(new Plan(arguments.steps())))
                    .build();

    private BuiltinTools() {
    }

    /** {@code task_completion}: {@code result} (string). */
    public static TypedTool<?, String> taskCompletion() {
        return TASK_COMPLETION_TOOL;
    }

    /** {@code ask_question}: {@code question} (string), {@code suggestions} (optional array of strings). */
    public static TypedTool<?, String> askQuestion() {
        return ASK_QUESTION_TOOL;
    }

    /** {@code converse}: {@code message} (string). */
    public static TypedTool<?, String> converse() {
        return CONVERSE_TOOL;
    }

    /** {@code update_plan}: {@code steps}, an array of {@code {description, status}}; its output is the new plan. */
    public static TypedTool<?, Plan> updatePlan() {
        return UPDATE_PLAN_TOOL;
    }

    /** All four, in the spec's order. */
    public static List<Tool> all() {
        return List.of(TASK_COMPLETION_TOOL, ASK_QUESTION_TOOL, CONVERSE_TOOL, UPDATE_PLAN_TOOL);
    }
}
