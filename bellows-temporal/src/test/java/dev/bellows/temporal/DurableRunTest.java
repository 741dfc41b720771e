package dev.bellows.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.LoopEvent;
import java.util.function.Consumer;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEndReason;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.RunWorkflow;
import dev.bellows.temporal.internal.RunWorkflowImpl;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Durable runs on Temporal's in-process test server: the same events and ending as a local run. */
class DurableRunTest {

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
                .turn(MockTurn.content("<thinking>plan</thinking>\nCounting. " + CountingTool.call("abc")).chunkSize(3)
                        .delayMs(40))
                .turn(MockTurn.content(CountingTool.call("de")).chunkSize(5))
                .turn(MockTurn.content("Done. " + CountingTool.done("two calls")).chunkSize(4))
                .build();
    }

    private DurableWorker worker(ScriptedProvider provider, ToolRegistry tools) {
        return worker(provider, tools, Duration.ofSeconds(1));
    }

    /**
     * A worker; a heartbeat timeout the loaded machine can miss makes the loop retry a model call,
     * and a scripted provider answers a retry with its next turn.
     */
    private DurableWorker worker(ScriptedProvider provider, ToolRegistry tools, Duration heartbeatTimeout) {
        return DurableWorker.builder(env.getWorkflowClient())
                .provider(provider)
                .tools(tools)
                .loop(b -> b.model("mock"))
                .retryPolicy(RetryPolicy.defaults())
                .heartbeatTimeout(heartbeatTimeout)
                .build();
    }

    @Test
    void aDurableRunEmitsTheEventsOfALocalRunAndEndsTheSameWay() throws Exception {
        // The local run, for comparison.
        CountingTool localTool = new CountingTool();
        List<String> local = new CopyOnWriteArrayList<>();
        AgentResult localResult = DefaultAgent.builder().provider(new ScriptedProvider(script())).model("mock")
                .toolRegistry(new ToolRegistry().register(localTool))
                .listener(e -> local.add(EventJson.toJson(e, true).toString())).build()
                .run("count twice").await();

        CountingTool tool = new CountingTool();
        ScriptedProvider provider = new ScriptedProvider(script());
        try (DurableWorker worker = worker(provider, new ToolRegistry().register(tool))) {
            worker.start();
            List<String> durable = new CopyOnWriteArrayList<>();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient())
                    .listener(e -> durable.add(EventJson.toJson(e, true).toString())).build();
            AgentRun run = agent.run("count twice");
            AgentResult result = run.await();

            assertThat(result).isEqualTo(localResult);
            assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(durable).containsExactlyElementsOf(local);
            assertThat(tool.calls).hasValue(2);
            assertThat(provider.turnsTaken()).isEqualTo(3);

            // A late follower gets the whole run from its start.
            List<AgentEvent> late = agent.follow(((FollowedRun) run).workflowId()).events().toList();
            assertThat(late.stream().map(e -> EventJson.toJson(e, true).toString())).containsExactlyElementsOf(local);
        }
    }

    @Test
    void theRecordedHistoryReplaysWithTheSameDecisions() throws Exception {
        CountingTool tool = new CountingTool();
        ScriptedProvider provider = new ScriptedProvider(script());
        String id;
        try (DurableWorker worker = worker(provider, new ToolRegistry().register(tool), Duration.ofSeconds(30))) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            id = agent.start("count twice");
            assertThat(agent.follow(id).await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        }
        WorkflowClient client = env.getWorkflowClient();
        WorkflowExecutionHistory history = client.fetchHistory(id);
        Worker replaying = env.newWorker("replay");
        ToolRegistry unused = new ToolRegistry().register(new CountingTool());
        replaying.registerWorkflowImplementationFactory(RunWorkflow.class,
                () -> new RunWorkflowImpl(TestSetups.setup(unused)));
        WorkflowReplayer.replayWorkflowExecution(history, replaying);
        assertThat(tool.calls).hasValue(2);
    }

    @Test
    void aCallWaitingForApprovalWaitsInTheWorkflowRunsOnceWhenApprovedAndTheHistoryReplays() throws Exception {
        CountingTool tool = new CountingTool();
        ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content("Counting. " + CountingTool.call("abc")).chunkSize(6))
                .turn(MockTurn.content(CountingTool.done("approved")))
                .build());
        Consumer<DefaultAgent.Builder> loop = b -> b.model("mock").requireApproval("*/count");
        String id;
        try (DurableWorker worker = DurableWorker.builder(env.getWorkflowClient()).provider(provider)
                .tools(new ToolRegistry().register(tool)).loop(loop).heartbeatTimeout(Duration.ofSeconds(30)).build()) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            id = agent.start("count abc");
            AgentResult stopped = agent.follow(id).await();
            assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(stopped.waiting()).singleElement().satisfies(call -> {
                assertThat(call.toolName()).isEqualTo("count");
                assertThat(call.arguments().path("text").asText()).isEqualTo("abc");
            });
            assertThat(tool.calls).hasValue(0);
            String callId = stopped.waiting().getFirst().id();

            assertThatThrownBy(() -> agent.decide(id, List.of())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no decision for waiting call " + callId);
            assertThatThrownBy(() -> agent.decide(id, List.of(Decision.approve(callId), Decision.approve("other"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no call waits with id other");
            List<AgentEvent> resumed = agent.decide(id, List.of(Decision.approve(callId))).events().toList();
            assertThat(resumed.getFirst()).isEqualTo(new LoopEvent.LoopStart("count abc"));
            assertThat(resumed.get(1)).isEqualTo(new LoopEvent.Approval(callId, true, ""));
            assertThat(resumed.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "approved"));
            assertThat(tool.calls).hasValue(1);
            assertThatThrownBy(() -> agent.decide(id, List.of(Decision.approve(callId))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waits for no approval");
        }
        Worker replaying = env.newWorker("replay-approval");
        ToolRegistry unused = new ToolRegistry().register(new CountingTool());
        replaying.registerWorkflowImplementationFactory(RunWorkflow.class,
                () -> new RunWorkflowImpl(TestSetups.setup(unused, loop)));
        WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory(id), replaying);
        assertThat(tool.calls).hasValue(1);
    }

    @Test
    void aFollowerOfATerminatedRunEndsWithAnErrorOnceItHasReadTheLog() throws Exception {
        ScriptedProvider slow = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content("<thinking>" + "on and on ".repeat(500) + "</thinking>" + CountingTool.call("x"))
                        .chunkSize(5).delayMs(20))
                .build());
        try (DurableWorker worker = worker(slow, new ToolRegistry().register(new CountingTool()),
                Duration.ofSeconds(30))) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            String id = agent.start("think on");
            AgentRun run = agent.follow(id);
            for (AgentEvent event : run) {
                if (event instanceof LoopEvent.IterationStart) {
                    env.getWorkflowClient().newUntypedWorkflowStub(id).terminate("stopped by an operator");
                    break;
                }
            }
            AgentResult ended = run.await();
            assertThat(ended.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(ended.result()).contains("ended (terminated)");
            // A late follower of the closed run ends the same way.
            assertThat(agent.follow(id).await()).isEqualTo(ended);
        }
    }

    @Test
    void cancellingARunStopsTheModelCallOnTheWorkerBeforeTheLoopEndsCancelled() throws Exception {
        MockScript slow = MockScript.builder()
                .turn(MockTurn.content("<thinking>" + "on and on ".repeat(500) + "</thinking>" + CountingTool.call("x"))
                        .chunkSize(5).delayMs(20))
                .build();
        ScriptedProvider scripted = new ScriptedProvider(slow);
        AtomicInteger cancels = new AtomicInteger();
        Provider watching = new Provider() {
            @Override
            public String name() {
                return "watching";
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                ChatStream stream = scripted.stream(request);
                return new ChatStream() {
                    @Override
                    public StreamChunk next() throws ProviderException {
                        return stream.next();
                    }

                    @Override
                    public Optional<String> finishReason() {
                        return stream.finishReason();
                    }

                    @Override
                    public Optional<TokenUsage> usage() {
                        return stream.usage();
                    }

                    @Override
                    public void cancel() {
                        cancels.incrementAndGet();
                        stream.cancel();
                    }

                    @Override
                    public void close() {
                        stream.close();
                    }
                };
            }
        };
        CountingTool tool = new CountingTool();
        try (DurableWorker worker = DurableWorker.builder(env.getWorkflowClient()).provider(watching)
                .tools(new ToolRegistry().register(tool)).loop(b -> b.model("mock"))
                .heartbeatTimeout(Duration.ofSeconds(1)).build()) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            AgentRun run = agent.run("think on");
            for (AgentEvent event : run) {
                if (event instanceof StreamEvent.ThinkingContent) {
                    run.cancel();
                    break;
                }
            }
            AgentResult result = run.await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.CANCELLED);
            // The run ends once the worker's model call has stopped: its stream was cancelled by then.
            assertThat(cancels).hasPositiveValue();
            assertThat(tool.calls).hasValue(0);
        }
    }
}
