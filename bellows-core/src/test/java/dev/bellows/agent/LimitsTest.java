package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Limits}: per agent's run and for a run with every agent it runs. */
class LimitsTest {

    private static String noop() {
        return call("update_plan", "{\"steps\": [{\"description\": \"go on\", \"status\": \"in_progress\"}]}");
    }

    @Test
    void anAgentsTokenLimitEndsItsRunBeforeTheNextModelCall() {
        ScriptedProvider model = provider(noop(), noop(), complete("never"));
        DefaultAgent agent = agent(model).limits(Limits.none().maxTokens(1)).build();

        AgentResult result = agent.run("work").await();

        assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
        assertThat(result.result()).contains("limit reached", "tokens");
        assertThat(model.requests()).hasSize(1);
    }

    @Test
    void anAgentsIterationsAreItsMaxIterations() {
        DefaultAgent agent = agent(provider(noop(), noop(), complete("never"))).limits(Limits.none().maxIterations(2))
                .build();

        assertThat(agent.run("work").await().reason()).isEqualTo(LoopEndReason.MAX_ITERATIONS);
    }

    @Test
    void anAgentsTimeLimitIsCheckedBeforeEachModelCall() {
        ScriptedProvider model = provider(noop(), complete("never"));
        DefaultAgent agent = agent(model).limits(Limits.none().maxTime(Duration.ofNanos(1))).build();

        AgentResult result = agent.run("work").await();

        assertThat(result.result()).contains("limit reached", "time");
        assertThat(model.requests()).isEmpty();
    }

    @Test
    void theTreesIterationsCountTheSubAgentsModelCallsToo() {
        ScriptedProvider childModel = provider(noop(), noop(), complete("child done"));
        DefaultAgent child = agent(childModel).build();
        ScriptedProvider leadModel = provider(call("child", "{\"task\": \"t\"}"), complete("lead done"));
        DefaultAgent lead = agent(leadModel, AgentTool.of("child", "Child", child))
                .treeLimits(Limits.none().maxIterations(3)).build();

        AgentResult result = lead.run("work").await();

        // lead 1 + child 2 = 3: the child's third call is refused, its failure is the lead's call's
        // result, and the lead's next model call is refused too
        assertThat(childModel.requests()).hasSize(2);
        assertThat(leadModel.requests()).hasSize(1);
        assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
        assertThat(result.result()).contains("the run's agents' together 3 iterations");
    }

    @Test
    void aHandoffTargetCountsInTheSameTree() {
        ScriptedProvider nextModel = provider(noop(), complete("never"));
        DefaultAgent next = agent(nextModel).name("next").build();
        DefaultAgent lead = agent(provider(call("transfer_to_next", "{}"))).handoff(Handoff.to("next", next))
                .treeLimits(Limits.none().maxIterations(2)).build();

        AgentResult result = lead.run("work").await();

        assertThat(nextModel.requests()).hasSize(1);
        assertThat(result.result()).contains("2 iterations");
    }
}
