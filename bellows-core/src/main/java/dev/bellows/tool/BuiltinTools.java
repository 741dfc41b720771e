package dev.bellows.tool;

import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStep;
import java.util.List;
import java.util.Optional;

/**
 * The built-in tools of server {@code local} (the CLI spec's table): three that end the agent
 * loop, each with a {@link LoopBreak} as output, and {@code update_plan}, whose output is the
 * new {@link Plan}.
 *
 * <p>Each is an ordinary {@link TypedTool}, a record and a lambda, written as a user would
 * write one. All of them only build a value, so they are safe to run in parallel; it is the
 * agent loop that acts on what they return.
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

    record TaskCompletionArguments(
            @Description("The final answer, complete and self-contained: it is all the user sees")
            String result) {
    }

    record AskQuestionArguments(
            @Description("The question, one at a time, clear enough to answer without more context")
            String question,
            @Description("A few short answers the user can pick from, when the likely answers are few")
            Optional<List<String>> suggestions) {
    }

    record ConverseArguments(
            @Description("Your reply to the user")
            String message) {
    }

    record UpdatePlanArguments(
            @Description("The whole plan, in order: every step with a short description and its status")
            List<PlanStep> steps) {
    }

    private static final TypedTool<TaskCompletionArguments, LoopBreak> TASK_COMPLETION_TOOL =
            TypedTool.builder(TASK_COMPLETION, TaskCompletionArguments.class)
                    .description("Finish the task and give the user the final answer. Call it once the task is done,"
                            + " with the complete answer in `result`; it ends your turn, so do not call it while"
                            + " work remains.")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.of(LoopBreak.of(TASK_COMPLETION, arguments.result())))
                    .build();

    private static final TypedTool<AskQuestionArguments, LoopBreak> ASK_QUESTION_TOOL =
            TypedTool.builder(ASK_QUESTION, AskQuestionArguments.class)
                    .description("Ask the user a question and wait for the answer. Use it only when you cannot go on"
                            + " without something only the user knows (a choice, a missing detail, a permission),"
                            + " not for what your tools can find out. It ends your turn.")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.of(new LoopBreak(ASK_QUESTION, arguments.question(),
                            arguments.suggestions().orElse(List.of()))))
                    .build();

    private static final TypedTool<ConverseArguments, LoopBreak> CONVERSE_TOOL =
            TypedTool.builder(CONVERSE, ConverseArguments.class)
                    .description("Reply to the user when their message asks for no task to be done: a greeting,"
                            + " small talk, a question about you or what you can do. It ends your turn with"
                            + " `message` as the reply.")
                    .loopBreaking(true)
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.of(LoopBreak.of(CONVERSE, arguments.message())))
                    .build();

    private static final TypedTool<UpdatePlanArguments, Plan> UPDATE_PLAN_TOOL =
            TypedTool.builder(UPDATE_PLAN, UpdatePlanArguments.class)
                    .description("Write or update your plan for a task that takes several steps. Send the whole plan"
                            + " every time, each step with its status: pending, in_progress (the step you are on"
                            + " now) or completed. It replaces the previous plan, which you are shown on every"
                            + " later turn. Use it when you start a multi-step task and whenever a step changes"
                            + " status; skip it for simple tasks.")
                    .parallelSafe(true)
                    .handler((context, arguments) -> ToolResult.of(new Plan(arguments.steps())))
                    .build();

    private BuiltinTools() {
    }

    /** {@code task_completion}: {@code result} (string). */
    public static TypedTool<?, LoopBreak> taskCompletion() {
        return TASK_COMPLETION_TOOL;
    }

    /** {@code ask_question}: {@code question} (string), {@code suggestions} (optional array of strings). */
    public static TypedTool<?, LoopBreak> askQuestion() {
        return ASK_QUESTION_TOOL;
    }

    /** {@code converse}: {@code message} (string). */
    public static TypedTool<?, LoopBreak> converse() {
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
