package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

    record Nothing(String note) {
    }

    /** Waits until it is interrupted, which {@code interrupted} then tells. */
    private static Tool waiting(CompletableFuture<Boolean> interrupted) {
        return TypedTool.of("wait", "Waits", Nothing.class, (context, arguments) -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.complete(true);
                throw e;
            }
            return ToolResult.of("never");
        });
    }

    /** Only the time limit can end the tool: it waits until interrupted. */
    @Test
    void anAgentsTimeLimitCutsShortAToolAlreadyRunning() {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        ScriptedProvider model = provider(call("wait", "{\"note\": \"x\"}"), complete("never"));
        DefaultAgent agent = agent(model, waiting(interrupted)).name("waiter")
                .limits(Limits.none().maxTime(Duration.ofMillis(300))).build();

        AgentResult result = agent.run("work").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                "limit reached: agent waiter's time of 300 ms is up"));
        assertThat(interrupted).isCompletedWithValue(true);
        assertThat(model.requests()).hasSize(1);
    }

    /** A sub-agent's own time limit ends its run alone: its caller's model reads why, and goes on. */
    @Test
    void aSubAgentsOwnTimeLimitEndsItsCallAndTheCallerGoesOn() {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        DefaultAgent child = agent(provider(call("wait", "{\"note\": \"x\"}")), waiting(interrupted)).name("child")
                .limits(Limits.none().maxTime(Duration.ofMillis(300))).build();
        ScriptedProvider leadModel = provider(call("child", "{\"task\": \"t\"}"), complete("lead done"));
        DefaultAgent lead = agent(leadModel, AgentTool.of("child", "Child", child)).build();

        AgentResult result = lead.run("work").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "lead done"));
        assertThat(interrupted).isCompletedWithValue(true);
        assertThat(leadModel.requests().get(1).messages().toString()).contains("agent child's time of 300 ms is up");
    }

    /** The tree's time ends the whole run, its sub-agent's tool interrupted where it waits. */
    @Test
    void theTreesTimeLimitCutsShortASubAgentsToolAndEndsTheRun() {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        DefaultAgent child = agent(provider(call("wait", "{\"note\": \"x\"}")), waiting(interrupted)).name("child").build();
        ScriptedProvider leadModel = provider(call("child", "{\"task\": \"t\"}"), complete("never"));
        DefaultAgent lead = agent(leadModel, AgentTool.of("child", "Child", child))
                .treeLimits(Limits.none().maxTime(Duration.ofMillis(300))).build();

        AgentResult result = lead.run("work").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                "limit reached: the run's agents' together time of 300 ms is up"));
        assertThat(interrupted).isCompletedWithValue(true);
        assertThat(leadModel.requests()).hasSize(1);
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
