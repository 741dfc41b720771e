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
import dev.bellows.tool.LoopEndReason;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import com.google.protobuf.Timestamp;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.ModelActivities;
import dev.bellows.temporal.internal.RunWorkflow;
import dev.bellows.temporal.internal.RunWorkflowImpl;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
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

    /**
     * The events without their chunk numbers, each run of deltas of one kind joined: a worker
     * holds back text that may begin one of its secrets (RedactedChunks) until the next chunk, so
     * when this JVM has a secret registered (another test class's key) the deltas of a durable run
     * are split otherwise than a local run's, the text and every other event the same.
     */
    static List<String> deltasJoined(List<String> events) {
        List<String> joined = new java.util.ArrayList<>();
        tools.jackson.databind.node.ObjectNode pending = null;
        for (String json : events) {
            tools.jackson.databind.node.ObjectNode event = (tools.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(json);
            event.remove("chunk");
            boolean delta = event.path("type").asString().endsWith("_content") && event.has("content");
            if (delta && pending != null && pending.path("type").equals(event.path("type"))) {
                pending.put("content", pending.path("content").asString() + event.path("content").asString());
                continue;
            }
            if (pending != null) {
                joined.add(pending.toString());
                pending = null;
            }
            if (delta) {
                pending = event;
            } else {
                joined.add(event.toString());
            }
        }
        if (pending != null) {
            joined.add(pending.toString());
        }
        return joined;
    }

    private static MockScript script() {
        return MockScript.builder()
                .turn(MockTurn.content("<thinking>plan</thinking>\nCounting. " + CountingTool.call("abc")).chunkSize(3)
                        .delayMs(40))
                .turn(MockTurn.content(CountingTool.call("de")).chunkSize(5))
                .turn(MockTurn.content("Done. " + CountingTool.done("two calls")).chunkSize(4))
                .build();
    }

    /**
     * A worker. Its heartbeat timeout is far above any stall of a loaded machine: a missed one
     * makes the loop retry a model call, which a scripted provider answers with its next turn, so
     * the run's events would no longer be the script's. That the heartbeat goes out while the
     * answer streams, and while the model is silent, is shown without a clock, by
     * {@link #theWorkerHeartbeatsWhileTheAnswerStreamsAndWhileTheModelIsSilent()}.
     */
    private DurableWorker worker(Provider provider, ToolRegistry tools) {
        return DurableWorker.builder(env.getWorkflowClient())
                .provider(provider)
                .tools(tools)
                .loop(b -> b.model("mock"))
                .retryPolicy(RetryPolicy.defaults())
                .heartbeatTimeout(Duration.ofSeconds(30))
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
            // A frontend patience that is not positive is refused when the agent is built, not found out
            // when a frontend goes silent (that a given one is kept: bellows-cli's DurableRunsTest).
            assertThatThrownBy(() -> DurableAgent.builder(env.getWorkflowClient()).frontendPatience(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).frontendPatience(Duration.ofSeconds(45))
                    .listener(e -> durable.add(EventJson.toJson(e, true).toString())).build();
            AgentRun run = agent.run("count twice");
            AgentResult result = run.await();

            assertThat(result).isEqualTo(localResult);
            assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(deltasJoined(durable)).containsExactlyElementsOf(deltasJoined(local));
            assertThat(tool.calls).hasValue(2);
            assertThat(provider.turnsTaken()).isEqualTo(3);

            // A late follower gets the whole run from its start.
            List<AgentEvent> late = agent.follow(((FollowedRun) run).workflowId()).events().toList();
            assertThat(deltasJoined(late.stream().map(e -> EventJson.toJson(e, true).toString()).toList()))
                    .containsExactlyElementsOf(deltasJoined(local));
        }
    }

    /**
     * The worker's own interceptors run in core's chains and see the run as the loop's own
     * interceptors see it in a local run: its agent, task and iteration (the workflow sends them
     * with each call), not an empty task at iteration 0.
     */
    @Test
    void theWorkersInterceptorsSeeTheRunAsALocalRunsInterceptorsDo() throws Exception {
        List<String> local = new CopyOnWriteArrayList<>();
        DefaultAgent.builder().provider(new ScriptedProvider(script())).model("mock")
                .toolRegistry(new ToolRegistry().register(new CountingTool()))
                .modelInterceptor(chain -> {
                    local.add(seen("model", chain.run()));
                    return chain.proceed(chain.request());
                })
                .toolInterceptor(chain -> {
                    if (!chain.call().toolName().equals("task_completion")) {
                        local.add(seen("tool", chain.run()));
                    }
                    return chain.proceed();
                })
                .build().run("count twice").await();

        List<String> onWorker = new CopyOnWriteArrayList<>();
        try (DurableWorker worker = DurableWorker.builder(env.getWorkflowClient())
                .provider(new ScriptedProvider(script()))
                .tools(new ToolRegistry().register(new CountingTool()))
                .loop(b -> b.model("mock"))
                .heartbeatTimeout(Duration.ofSeconds(30))
                .modelInterceptor(chain -> {
                    onWorker.add(seen("model", chain.run()));
                    return chain.proceed(chain.request());
                })
                .toolInterceptor(chain -> {
                    onWorker.add(seen("tool", chain.run()));
                    return chain.proceed();
                })
                .build()) {
            worker.start();
            AgentResult result = DurableAgent.builder(env.getWorkflowClient()).build().run("count twice").await();

            assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        }
        assertThat(local).containsExactly("model bellows/count twice/1", "tool bellows/count twice/1",
                "model bellows/count twice/2", "tool bellows/count twice/2", "model bellows/count twice/3");
        assertThat(onWorker).containsExactlyElementsOf(local);
    }

    /** A tool interceptor that fails every call it sees. */
    record Boom(AtomicInteger calls) implements dev.bellows.agent.ToolInterceptor {
        @Override
        public dev.bellows.tool.ToolCallOutcome intercept(Chain chain) {
            calls.incrementAndGet();
            throw new IllegalStateException("boom");
        }
    }

    @Test
    void aWorkersToolInterceptorThatThrowsEndsTheRunAsAnErrorNamingItOnceAsALocalRunDoes() throws Exception {
        AtomicInteger localCalls = new AtomicInteger();
        AgentResult local = DefaultAgent.builder().provider(new ScriptedProvider(script())).model("mock")
                .toolRegistry(new ToolRegistry().register(new CountingTool()))
                .toolInterceptor(new Boom(localCalls))
                .build().run("count twice").await();
        assertThat(local.reason()).isEqualTo(LoopEndReason.ERROR);
        assertThat(local.result()).contains(Boom.class.getName(), "IllegalStateException: boom");
        assertThat(localCalls).hasValue(1);

        AtomicInteger workerCalls = new AtomicInteger();
        try (DurableWorker worker = DurableWorker.builder(env.getWorkflowClient())
                .provider(new ScriptedProvider(script()))
                .tools(new ToolRegistry().register(new CountingTool()))
                .loop(b -> b.model("mock"))
                .heartbeatTimeout(Duration.ofSeconds(30))
                .toolInterceptor(new Boom(workerCalls))
                .build()) {
            worker.start();
            AgentResult durable = DurableAgent.builder(env.getWorkflowClient()).build().run("count twice").await();

            assertThat(durable.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(durable.result()).contains(local.result());
        }
        assertThat(workerCalls).as("the call is not retried: its interceptors ran once").hasValue(1);
    }

    private static String seen(String call, dev.bellows.agent.RunContext run) {
        return call + " " + run.agentName() + "/" + run.task() + "/" + run.iteration();
    }

    /**
     * A 4 MB answer that does not compress (random characters) would make a payload above
     * Temporal's default 2 MiB limit, which a cluster refuses: the run ends with an error naming
     * the limit and the size instead, and records nothing that big.
     */
    @Test
    void anAnswerTooBigToRecordEndsTheRunWithAnErrorNamingTheLimitAndTheSize() throws Exception {
        java.util.Random random = new java.util.Random(31);
        StringBuilder big = new StringBuilder(4 * 1024 * 1024);
        while (big.length() < 4 * 1024 * 1024) {
            big.append((char) ('!' + random.nextInt(94)));
        }
        ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content(big.toString().replace("<", "(")).chunkSize(64 * 1024)).build());
        try (DurableWorker worker = worker(provider, new ToolRegistry())) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            AgentRun run = agent.run("say a lot");
            AgentResult result = run.await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(result.result()).contains("too big for a durable run to record")
                    .contains("above the 2097152 bytes").containsPattern("\\d{7} bytes compressed");
            WorkflowExecutionHistory history = env.getWorkflowClient().fetchHistory(((FollowedRun) run).workflowId());
            assertThat(history.getHistory().getSerializedSize()).isLessThan(2 * 1024 * 1024);
        }
    }

    @Test
    void theWorkerHeartbeatsWhileTheAnswerStreamsAndWhileTheModelIsSilent() throws Exception {
        // The model stops mid-answer, after its thinking, until the test lets it go on: the thinking
        // reaches a follower while the model call has not returned, so through a heartbeat only;
        // then, the model silent, the server hears more heartbeats, so a live worker is not taken
        // for a dead one however long a model thinks before its next piece.
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ScriptedProvider scripted = new ScriptedProvider(script());
        AtomicInteger streams = new AtomicInteger();
        Provider holding = new Provider() {
            @Override
            public String name() {
                return "holding";
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                ChatStream stream = scripted.stream(request);
                if (streams.incrementAndGet() > 1) {
                    return stream;
                }
                return new ChatStream() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public StreamChunk next() throws ProviderException {
                        if (text.indexOf("</thinking>") >= 0 && held.getCount() > 0) {
                            held.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new ProviderException(ProviderException.Kind.CONNECTION, "interrupted while held", e);
                            }
                        }
                        StreamChunk chunk = stream.next();
                        if (chunk instanceof StreamChunk.Text t) {
                            text.append(t.text());
                        }
                        return chunk;
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
        try (DurableWorker worker = worker(holding, new ToolRegistry().register(tool))) {
            worker.start();
            CompletableFuture<String> thinking = new CompletableFuture<>();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).listener(event -> {
                if (event instanceof StreamEvent.ThinkingEnd end) {
                    thinking.complete(end.content());
                }
            }).build();
            String id = agent.start("count twice");
            AgentRun run = agent.follow(id);
            try {
                assertThat(held.await(30, TimeUnit.SECONDS)).as("the model call reached the hold").isTrue();
                assertThat(thinking.get(30, TimeUnit.SECONDS)).isEqualTo("plan");
                assertThat(release.getCount()).as("seen while the model call is held").isOne();

                Set<Timestamp> heard = new HashSet<>();
                for (int look = 0; heard.size() < 3 && look < 300; look++) {     // a hang guard, not a measure
                    modelCall(id).filter(PendingActivityInfo::hasLastHeartbeatTime)
                            .ifPresent(call -> heard.add(call.getLastHeartbeatTime()));
                    Thread.sleep(100);
                }
                assertThat(heard).as("heartbeats the server heard while the model was silent").hasSize(3);
            } finally {
                release.countDown();
            }
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(tool.calls).hasValue(2);
            assertThat(scripted.turnsTaken()).isEqualTo(3);     // no call was taken over and asked again
        }
    }

    /** The run's model call in flight, as the server describes it. */
    private Optional<PendingActivityInfo> modelCall(String id) {
        WorkflowClient client = env.getWorkflowClient();
        return client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
                        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(client.getOptions().getNamespace())
                                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id)).build())
                .getPendingActivitiesList().stream()
                .filter(activity -> activity.getActivityType().getName().equals(ModelActivities.MODEL_CALL))
                .findFirst();
    }

    @Test
    void theRecordedHistoryReplaysWithTheSameDecisions() throws Exception {
        CountingTool tool = new CountingTool();
        ScriptedProvider provider = new ScriptedProvider(script());
        String id;
        try (DurableWorker worker = worker(provider, new ToolRegistry().register(tool))) {
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

    /** Loop settings under which every call of the count tool waits for approval. */
    private static final Consumer<DefaultAgent.Builder> APPROVE_COUNTS = b -> b.model("mock").requireApproval("*/count");

    /** A worker whose model calls count once ("abc"), then completes with "approved"; the call waits for approval. */
    private DurableWorker approvingWorker(CountingTool tool) {
        return approvingWorker(tool, chain -> chain.proceed());
    }

    /** As {@link #approvingWorker(CountingTool)}, with a tool interceptor of the worker's. */
    private DurableWorker approvingWorker(CountingTool tool, dev.bellows.agent.ToolInterceptor interceptor) {
        ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content("Counting. " + CountingTool.call("abc")).chunkSize(6))
                .turn(MockTurn.content(CountingTool.done("approved")))
                .build());
        return DurableWorker.builder(env.getWorkflowClient()).provider(provider).tools(new ToolRegistry().register(tool))
                .loop(APPROVE_COUNTS).heartbeatTimeout(Duration.ofSeconds(30)).toolInterceptor(interceptor).build();
    }

    @Test
    void aCallWaitingForApprovalWaitsInTheWorkflowRunsOnceWhenApprovedAndTheHistoryReplays() throws Exception {
        CountingTool tool = new CountingTool();
        String id;
        try (DurableWorker worker = approvingWorker(tool)) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            id = agent.start("count abc");
            AgentResult stopped = agent.follow(id).await();
            assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(stopped.waiting()).singleElement().satisfies(call -> {
                assertThat(call.toolName()).isEqualTo("count");
                assertThat(call.arguments().path("text").asString()).isEqualTo("abc");
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
                () -> new RunWorkflowImpl(TestSetups.setup(unused, APPROVE_COUNTS)));
        WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory(id), replaying);
        assertThat(tool.calls).hasValue(1);
    }

    /**
     * A worker without the tool of a waiting call (restarted without its MCP server) refuses an
     * approval of it in the update's validator, nothing recorded; a denial needs no tool.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES,
            threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void anApprovalOfAToolTheWorkersLackIsRefusedByTheUpdateAndADenialNeedsNoTool() throws Exception {
        CountingTool tool = new CountingTool();
        DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
        String id;
        String callId;
        try (DurableWorker worker = approvingWorker(tool)) {
            worker.start();
            id = agent.start("count abc");
            callId = agent.follow(id).await().waiting().getFirst().id();
        }
        ScriptedProvider after = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content(CountingTool.done("left alone"))).build());
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DurableWorker without = DurableWorker.builder(env.getWorkflowClient()).provider(after)
                .tools(new ToolRegistry()).loop(APPROVE_COUNTS).heartbeatTimeout(Duration.ofSeconds(30))
                .toolInterceptor(chain -> {
                    seen.add(chain.call().toolName());
                    return chain.proceed();
                }).build()) {
            without.start();
            assertThatThrownBy(() -> agent.decide(id, List.of(Decision.approve(callId))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("call " + callId + " needs tool ").hasMessageContaining("/count");
            List<AgentEvent> resumed = agent.decide(id, List.of(Decision.deny(callId, "not today"))).events().toList();
            assertThat(resumed.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "left alone"));
            assertThat(after.requests().getFirst().messages().toString()).contains("not today");
        }
        assertThat(seen).doesNotContain("count");      // a denied call reaches no interceptor
        assertThat(tool.calls).hasValue(0);
    }

    /**
     * A hang guard as well: decisions the update accepted but the loop refuses fail the workflow's
     * task on every attempt, and the update never completes.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES,
            threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void anApprovedCallRunsWithEditedArgumentsCheckedAgainstTheToolsSchemaAndTheHistoryReplays() throws Exception {
        CountingTool tool = new CountingTool();
        String id;
        // docs/machine.md "The seam": the worker's interceptor sees the call only once approved, with the edit
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DurableWorker worker = approvingWorker(tool, chain -> {
            seen.add(chain.call().toolName() + " " + chain.call().arguments());
            return chain.proceed();
        })) {
            worker.start();
            DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
            id = agent.start("count abc");
            String callId = agent.follow(id).await().waiting().getFirst().id();
            tools.jackson.databind.ObjectMapper json = new tools.jackson.databind.ObjectMapper();

            // Arguments the tool's schema refuses are refused by the update: nothing recorded, the run waits on.
            tools.jackson.databind.node.ObjectNode wrong = json.createObjectNode();
            wrong.putArray("text").add("a");       // no lossless coercion makes a list a string
            assertThatThrownBy(() -> agent.decide(id, List.of(Decision.approve(callId, wrong))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the edited arguments of call " + callId + " do not match the tool's schema");
            assertThat(tool.calls).hasValue(0);
            assertThat(seen).isEmpty();

            tools.jackson.databind.node.ObjectNode edited = json.createObjectNode().put("text", "abcdefg");
            List<AgentEvent> resumed = agent.decide(id, List.of(Decision.approve(callId, edited))).events().toList();
            assertThat(resumed.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "approved"));
            assertThat(resumed).filteredOn(LoopEvent.ToolResultEvent.class::isInstance)
                    .map(LoopEvent.ToolResultEvent.class::cast).filteredOn(result -> result.toolName().equals("count"))
                    .singleElement().satisfies(result -> {
                        assertThat(result.arguments()).isEqualTo(edited);
                        assertThat(result.result()).isEqualTo("call 1: 7 characters");
                    });
            assertThat(tool.calls).hasValue(1);
            assertThat(seen).filteredOn(call -> call.startsWith("count ")).containsExactly("count {\"text\":\"abcdefg\"}");
        }
        Worker replaying = env.newWorker("replay-edited");
        replaying.registerWorkflowImplementationFactory(RunWorkflow.class,
                () -> new RunWorkflowImpl(TestSetups.setup(new ToolRegistry().register(new CountingTool()), APPROVE_COUNTS)));
        WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory(id), replaying);
        assertThat(tool.calls).hasValue(1);
    }

    @Test
    void aFollowerOfATerminatedRunEndsWithAnErrorOnceItHasReadTheLog() throws Exception {
        ScriptedProvider slow = new ScriptedProvider(MockScript.builder()
                .turn(MockTurn.content("<thinking>" + "on and on ".repeat(500) + "</thinking>" + CountingTool.call("x"))
                        .chunkSize(5).delayMs(20))
                .build());
        try (DurableWorker worker = worker(slow, new ToolRegistry().register(new CountingTool()))) {
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

    /**
     * A completed run's log is read by a worker replaying its history: when no worker answers in
     * time, the follower looks again (up to {@code Follower.CLOSED_UNREADABLE}) rather than ending
     * the run as an error with its events unshown, and reads it all once a worker comes.
     */
    @Test
    void aFollowerOfACompletedRunLooksAgainUntilAWorkerReadsItsLog() throws Exception {
        DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
        String id;
        AgentResult result;
        List<String> events = new CopyOnWriteArrayList<>();
        try (DurableWorker worker = worker(new ScriptedProvider(script()), new ToolRegistry().register(new CountingTool()))) {
            worker.start();
            id = agent.start("count twice");
            AgentRun run = agent.follow(id);
            run.events().forEach(e -> events.add(EventJson.toJson(e, true).toString()));
            result = run.await();
        }
        assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);

        // A client whose queries give up after about a second, not retried: the server would wait
        // a minute for a worker to answer, and the client retry for as long.
        WorkflowServiceStubs quickStubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions
                .newBuilder(env.getWorkflowServiceStubs().getOptions())
                .setRpcQueryTimeout(Duration.ofSeconds(1))
                .setRpcRetryOptions(io.temporal.serviceclient.RpcRetryOptions.newBuilder()
                        .setExpiration(Duration.ofSeconds(1)).validateBuildWithDefaults())
                .build());
        try {
            WorkflowClient quick = WorkflowClient.newInstance(quickStubs, env.getWorkflowClient().getOptions());
            // No worker now: the log's query fails (the precondition of this test).
            assertThatThrownBy(() -> quick.newUntypedWorkflowStub(id)
                    .query("events", dev.bellows.temporal.internal.EventPage.class, 0L)).isInstanceOf(RuntimeException.class);

            List<String> late = new CopyOnWriteArrayList<>();
            CompletableFuture<AgentResult> following = dev.bellows.testkit.Background.supply(() -> {
                AgentRun run = DurableAgent.builder(quick).build().follow(id);
                run.events().forEach(e -> late.add(EventJson.toJson(e, true).toString()));
                return run.await();
            });
            // Time for the follower's queries to fail twice or more before a worker comes: not a
            // timing assertion (the follower must wait however long this is).
            Thread.sleep(2500);
            assertThat(following).isNotDone();
            assertThat(late).isEmpty();
            try (DurableWorker again = worker(new ScriptedProvider(script()),
                    new ToolRegistry().register(new CountingTool()))) {
                again.start();
                assertThat(following.get(60, TimeUnit.SECONDS)).isEqualTo(result);
            }
            assertThat(late).containsExactlyElementsOf(events);
        } finally {
            quickStubs.shutdown();
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
                .heartbeatTimeout(Duration.ofSeconds(30)).build()) {
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
