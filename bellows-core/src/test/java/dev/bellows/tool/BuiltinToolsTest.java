package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import java.util.List;
import org.junit.jupiter.api.Test;

class BuiltinToolsTest {

    @Test
    void allFourInTheSpecsOrderWithTheirFlags() {
        assertThat(BuiltinTools.all()).extracting(Tool::name)
                .containsExactly("task_completion", "ask_question", "converse", "update_plan");
        assertThat(BuiltinTools.all()).extracting(Tool::loopBreaking).containsExactly(true, true, true, false);
        assertThat(BuiltinTools.all()).allMatch(Tool::validatesArguments).allMatch(Tool::parallelSafe)
                .allMatch(tool -> !tool.description().isBlank());
    }

    @Test
    void schemas() {
        assertThat(BuiltinTools.taskCompletion().inputSchema().toString()).isEqualTo(Json.normalize("""
                {'type':'object','properties':{'result':{'type':'string'}},
                 'required':['result'],'additionalProperties':false}"""));
        assertThat(BuiltinTools.askQuestion().inputSchema().toString()).isEqualTo(Json.normalize("""
                {'type':'object','properties':{
                 'question':{'type':'string'},
                 'suggestions':{'type':'array','items':{'type':'string'}}},
                 'required':['question'],'additionalProperties':false}"""));
        assertThat(BuiltinTools.converse().inputSchema().toString()).isEqualTo(Json.normalize("""
                {'type':'object','properties':{'message':{'type':'string'}},
                 'required':['message'],'additionalProperties':false}"""));
        assertThat(BuiltinTools.updatePlan().inputSchema().toString()).isEqualTo(Json.normalize("""
                {'type':'object','properties':{'steps':{'type':'array',
                  'items':{'type':'object','properties':{'description':{'type':'string'},
                   'status':{'type':'string','enum':['pending','in_progress','completed']}},
                   'required':['description','status'],'additionalProperties':false}}},
                 'required':['steps'],'additionalProperties':false}"""));
    }

    @Test
    void loopBreakingToolsEndTheRunWithTheirText() throws Exception {
        assertThat(effect(BuiltinTools.taskCompletion(), "{'result':'42'}"))
                .isEqualTo(new ToolEffect.EndRun(LoopEndReason.TASK_COMPLETION, "42"));
        assertThat(call(BuiltinTools.taskCompletion(), "{'result':'42'}")).isEqualTo("42");
        assertThat(effect(BuiltinTools.converse(), "{'message':'Hello!'}"))
                .isEqualTo(new ToolEffect.EndRun(LoopEndReason.CONVERSE, "Hello!"));
        assertThat(effect(BuiltinTools.askQuestion(), "{'question':'Which file?','suggestions':['a.txt','b.txt']}"))
                .isEqualTo(new ToolEffect.EndRun(LoopEndReason.ASK_QUESTION, "Which file?", List.of("a.txt", "b.txt")));
        assertThat(effect(BuiltinTools.askQuestion(), "{'question':'Which file?'}"))
                .isEqualTo(new ToolEffect.EndRun(LoopEndReason.ASK_QUESTION, "Which file?"));
        assertThat(((ToolEffect.EndRun) effect(BuiltinTools.askQuestion(), "{'question':'Go on?','suggestions':'yes'}"))
                .suggestions()).containsExactly("yes");
        assertThat(call(BuiltinTools.taskCompletion(), "{'result':42}")).isEqualTo("42");
    }

    @Test
    void updatePlanReplacesThePlan() throws Exception {
        assertThat(effect(BuiltinTools.updatePlan(), "{'steps':[{'description':'Fix it','status':'pending'}]}"))
                .isEqualTo(new ToolEffect.ReplacePlan(new Plan(List.of(new PlanStep("Fix it", PlanStatus.PENDING)))));
    }

    @Test
    void aLoopBreakingToolWithoutItsTextTellsTheModel() {
        assertThatThrownBy(() -> call(BuiltinTools.taskCompletion(), "{'answer':'42'}"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessage("invalid arguments for task_completion: \"answer\": unknown property; the properties are"
                        + " \"result\"; \"result\": required but missing. Expected arguments: {\"result\": string}");
    }

    @Test
    void updatePlanReturnsThePlan() throws Exception {
        Plan plan = call(BuiltinTools.updatePlan(), """
                {'steps':[{'description':'Read the test','status':'completed'},
                          {'description':'Fix the parser','status':'In_Progress'},
                          {'description':'Run the suite','status':'pending'}]}""");
        assertThat(plan.steps()).containsExactly(new PlanStep("Read the test", PlanStatus.COMPLETED),
                new PlanStep("Fix the parser", PlanStatus.IN_PROGRESS),
                new PlanStep("Run the suite", PlanStatus.PENDING));
        assertThat(Jackson.JSON.writeValueAsString(plan)).isEqualTo("{\"steps\":[{\"description\":\"Read the"
                + " test\",\"status\":\"completed\"},{\"description\":\"Fix the parser\",\"status\":\"in_progress\"},"
                + "{\"description\":\"Run the suite\",\"status\":\"pending\"}]}");
    }

    @Test
    void updatePlanWithABadStatusNamesTheStep() {
        assertThatThrownBy(() -> call(BuiltinTools.updatePlan(),
                "{'steps':[{'description':'Fix it','status':'done'}]}"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessage("invalid arguments for update_plan: \"steps[0].status\": expected one of \"pending\","
                        + " \"in_progress\", \"completed\", got \"done\". Expected arguments: {\"steps\":"
                        + " {\"description\": string, \"status\": \"pending\"|\"in_progress\"|\"completed\"}[]}");
    }

    private static ToolEffect effect(TypedTool<?, ?> tool, String arguments) throws Exception {
        return tool.call(ToolContext.of("local", tool.name()), Json.parse(arguments)).effect();
    }

    private static <O> O call(TypedTool<?, O> tool, String arguments) throws Exception {
        return tool.call(ToolContext.of("local", tool.name()), Json.parse(arguments)).output();
    }
}
