package dev.bellows.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.RunWorkflow;
import dev.bellows.temporal.internal.RunWorkflowImpl;
import dev.bellows.temporal.internal.WorkerSetup;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolRegistry;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A durable run's sub-agents run inside its workflow ({@link RunAgents}): the same events as a
 * local run of the same agents, a sub-agent's call that needs approval makes the run wait, the
 * approved call runs once, and the history replays.
 */
class DurableSubAgentTest {

    private static final Consumer<DefaultAgent.Builder> LOOP = b -> b.model("mock");

    /** The lead calls the counter, whose count needs approval: built alike in the workflow and locally. */
    private static final RunAgents AGENTS = (root, parts) -> {
        DefaultAgent counter = parts.builder().name("counter").model("mock").toolRegistry(parts.tools())
                .requireApproval("*/count").build();
        root.name("lead").toolRegistry(new ToolRegistry().register(AgentTool.of("counter", "Counts", counter)));
    };

    private TestWorkflowEnvironment env;

    @BeforeEach
    void start() {
        env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(WorkflowClientOptions.newBuilder()
                        .setDataConverter(Json.dataConverter()).build())
                .build());
    }

    @AfterEach
    void stop() {
        env.close();
    }

    private static MockScript script() {
        return MockScript.builder()
                .turn(MockTurn.content("Asking. <tool>{\"tool_name\": \"counter\", \"arguments\": {\"task\": \"count abc\"}}</tool>")
                        .chunkSize(7).delayMs(40))    // slow enough for the follower to show it live, read as the run reads it
                .turn(MockTurn.content("Counting. " + CountingTool.call("abc")).chunkSize(5))
                .turn(MockTurn.content(CountingTool.done("counted")).chunkSize(9))
                .turn(MockTurn.content(CountingTool.done("lead done")).chunkSize(9))
                .build();
    }

    @Test
    void aSubAgentRunsInTheWorkflowItsApprovalMakesTheRunWaitTheCallRunsOnceAndTheHistoryReplays() throws Exception {
        // The same agents run locally, for comparison.
        CountingTool localTool = new CountingTool();
        List<String> local = new CopyOnWriteArrayList<>();
        Provider localModel = new ScriptedProvider(script());
        DefaultAgent localCounter = DefaultAgent.builder().provider(localModel).name("counter").model("mock")
                .toolRegistry(new ToolRegistry().register(localTool)).requireApproval("*/count").build();
        DefaultAgent localLead = DefaultAgent.builder().provider(localModel).name("lead").model("mock")
                .toolRegistry(new ToolRegistry().register(AgentTool.of("counter", "Counts", localCounter)))
                .listener(e -> local.add(EventJson.toJson(e, true).toString())).build();
        Session session = new Session();
        AgentResult localStopped = localLead.run("count with the counter", session).await();
        assertThat(localStopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        AgentResult localEnd = localLead.resume(session, List.of(Decision.approve(localStopped.waiting().getFirst().id())))
                .await();

        CountingTool tool = new CountingTool();
        ScriptedProvider model = new ScriptedProvider(script());
        String id;
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DurableWorker worker = DurableWorker.builder(env.getWorkflowClient()).provider(model)
                .tools(new ToolRegistry().register(tool)).loop(LOOP).agents("lead", AGENTS)
                .retryPolicy(RetryPolicy.defaults()).heartbeatTimeout(Duration.ofSeconds(30))
                .modelInterceptor(chain -> {
                    seen.add("model " + chain.run().agentName() + " " + chain.run().task() + " " + chain.run().iteration());
                    return chain.proceed(chain.request());
                })
                .toolInterceptor(chain -> {
                    seen.add("tool " + chain.run().agentName() + " " + chain.run().task() + " " + chain.run().iteration());
                    return chain.proceed();
                })
                .build()) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).agent("lead").build();
            id = agent.start("count with the counter");
            List<AgentEvent> first = agent.follow(id).events().toList();
            AgentResult stopped = agent.follow(id).await();
            assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(stopped.waiting()).singleElement().satisfies(call -> {
                assertThat(call.id()).isEqualTo(localStopped.waiting().getFirst().id()).contains("/");
                assertThat(call.toolName()).isEqualTo("count");
            });
            assertThat(tool.calls).hasValue(0);
            List<AgentEvent> second = agent.decide(id, List.of(Decision.approve(stopped.waiting().getFirst().id())))
                    .events().toList();
            assertThat(second.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "lead done"));
            assertThat(tool.calls).hasValue(1);
            assertThat(model.turnsTaken()).isEqualTo(4);

            // The nested events name their agent and the lead's call, as a local run's do.
            List<String> durable = new ArrayList<>();
            first.forEach(e -> durable.add(EventJson.toJson(e, true).toString()));
            second.forEach(e -> durable.add(EventJson.toJson(e, true).toString()));
            assertThat(first).filteredOn(LoopEvent.SubAgentEvent.class::isInstance).isNotEmpty()
                    .allSatisfy(e -> assertThat(((LoopEvent.SubAgentEvent) e).agent()).isEqualTo("counter"));
            assertThat(DurableRunTest.deltasJoined(durable)).containsExactlyElementsOf(DurableRunTest.deltasJoined(local));
            assertThat(localEnd.result()).isEqualTo("lead done");
            // The worker's interceptors see each call as the run of the agent that made it.
            assertThat(seen).containsExactly("model lead count with the counter 1", "model counter count abc 1",
                    "tool counter count abc 1", "model counter count abc 2", "model lead count with the counter 2");

            // A client asking for another agent is told which one these workers serve.
            AgentResult wrong = DurableAgent.builder(env.getWorkflowClient()).agent("writer").build().run("x").await();
            assertThat(wrong.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(wrong.result()).contains("run the agent lead, not writer");
        }
        Worker replaying = env.newWorker("replay-sub-agents");
        replaying.registerWorkflowImplementationFactory(RunWorkflow.class, () -> new RunWorkflowImpl(
                new WorkerSetup(LOOP, RetryPolicy.defaults(), new ToolRegistry().register(new CountingTool()),
                        Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(1), AGENTS, "lead")));
        WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory(id), replaying);
        assertThat(tool.calls).hasValue(1);
    }
}
