package dev.bellows.plan;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {

    @Test
    void aChecklistForPrompts() {
        Plan plan = new Plan(List.of(new PlanStep("Read the failing test", PlanStatus.COMPLETED),
                new PlanStep("Fix the parser", PlanStatus.IN_PROGRESS),
                new PlanStep("Run the whole suite", PlanStatus.PENDING)));
        assertThat(plan.toChecklist()).isEqualTo("""
                [x] Read the failing test
                [>] Fix the parser
                [ ] Run the whole suite""");
        assertThat(Plan.empty().toChecklist()).isEmpty();
    }

    @Test
    void aPlanIsAValue() {
        List<PlanStep> steps = new ArrayList<>(List.of(new PlanStep("a", PlanStatus.PENDING)));
        Plan plan = new Plan(steps);
        steps.clear();
        assertThat(plan.steps()).hasSize(1);
        assertThatThrownBy(() -> new PlanStep(null, PlanStatus.PENDING)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void jsonRoundTripInTheSpecsLowerCase() throws Exception {
        ObjectMapper mapper = Jackson.JSON;
        String json = "{\"steps\":[{\"description\":\"a\",\"status\":\"in_progress\"}]}";
        Plan plan = mapper.readValue(json, Plan.class);
        assertThat(plan.steps()).containsExactly(new PlanStep("a", PlanStatus.IN_PROGRESS));
        assertThat(mapper.writeValueAsString(plan)).isEqualTo(json);
    }
}
