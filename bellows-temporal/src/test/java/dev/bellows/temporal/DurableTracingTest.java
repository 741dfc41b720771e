package dev.bellows.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.opentelemetry.BellowsTelemetry;
import dev.bellows.opentelemetry.RunSpanIds;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.internal.Json;
import dev.bellows.temporal.internal.RunTrace;
import dev.bellows.temporal.internal.RunWorkflow;
import dev.bellows.temporal.internal.RunWorkflowImpl;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import dev.bellows.tool.ToolRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A durable run traced as bellows worker traces it (docs/temporal.md, "Traces"): the real
 * OpenAI-compatible provider against the testkit's mock server on 127.0.0.1 (which records the
 * requests' headers), bellows-opentelemetry's interceptors in the activities, the SDK's in-memory
 * exporters, Temporal's in-process test server. The worker keeps no workflow in its cache, so
 * every step of the run replays the run's history: the spans below are counted after four
 * replays, and again after a replay of the whole history.
 */
class DurableTracingTest {

    private static final String KEY = "sk-durable-trace-0123456789";
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    private static final AttributeKey<String> CONVERSATION = AttributeKey.stringKey("gen_ai.conversation.id");

    private TestWorkflowEnvironment env;
    /** What each worker exports: its own SDK, as two worker processes would have. */
    private final Traced first = new Traced();
    private final Traced second = new Traced();

    /** One worker's OpenTelemetry: a real SDK with RunSpanIds, read through its in-memory exporters. */
    private static final class Traced {
        final InMemorySpanExporter spans = InMemorySpanExporter.create();
        final InMemoryMetricReader metrics = InMemoryMetricReader.create();
        final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .setIdGenerator(RunSpanIds.of(IdGenerator.random()))
                        .addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
                .build();
        final BellowsTelemetry telemetry = BellowsTelemetry.builder(sdk).captureMessageContent(false).build();

        DurableWorker.Builder instrument(DurableWorker.Builder builder) {
            return builder.modelInterceptor(telemetry.modelInterceptor())
                    .toolInterceptor(telemetry.toolInterceptor())
                    .onRunEnded(run -> telemetry.recordEndedRun(run.run(), run.result(), run.traceparent(),
                            run.started(), run.ended()));
        }

        List<SpanData> spans() {
            return spans.getFinishedSpanItems();
        }

        List<MetricData> metrics() {
            return List.copyOf(metrics.collectAllMetrics());
        }
    }

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
        first.sdk.close();
        second.sdk.close();
    }

    /**
     * The first attempt fails (503, Retry-After 3 s) on one worker, which then stops; another
     * worker makes the rest and ends the run: each exports its own calls' spans, and together they
     * are one trace under the run's span.
     */
    @Test
    void aDurableRunIsOneTraceUnderItsRunSpanWhicheverWorkersMadeItsCallsNoneTwiceOnReplay() throws Exception {
        CountingTool tool = new CountingTool();
        String id;
        String runId;
        List<RecordedRequest> requests;
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(
                MockTurn.status(503).header("Retry-After", "3").errorMessage("overloaded"),
                MockTurn.content("Counting. " + CountingTool.call("abc")),
                MockTurn.content(CountingTool.done("counted"))));
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).apiKey(ApiKey.of(KEY)).build()) {
            DurableWorker.Builder setup = DurableWorker.builder(env.getWorkflowClient())
                    .provider(provider)
                    .tools(new ToolRegistry().register(tool))
                    .loop(b -> b.model("mock-model"))
                    .retryPolicy(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofSeconds(10)))
                    .heartbeatTimeout(Duration.ofSeconds(30));
            DurableWorker one = first.instrument(setup).build();
            DurableWorker other = null;
            try {
                one.start();
                DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
                id = agent.start("count abc");
                AgentRun run = agent.follow(id);
                for (AgentEvent event : run) {
                    if (event instanceof LoopEvent.Retry && other == null) {
                        // The run waits 3 s to retry: the first worker leaves, another takes the rest.
                        one.close();
                        other = second.instrument(DurableWorker.builder(env.getWorkflowClient())
                                .provider(provider)
                                .tools(new ToolRegistry().register(tool))
                                .loop(b -> b.model("mock-model"))
                                .retryPolicy(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofSeconds(10)))
                                .heartbeatTimeout(Duration.ofSeconds(30))).build();
                        other.start();
                        // Nothing left to prove in the wait: the test server's clock skips to the timer,
                        // as soon as nothing is in flight (a model call or a step holds it to real time).
                        env.sleep(Duration.ofSeconds(3));
                    }
                }
                AgentResult result = run.await();
                assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            } finally {
                one.close();
                if (other != null) {
                    other.close();
                }
            }
            assertThat(other).as("the run retried").isNotNull();
            assertThat(tool.calls).hasValue(1);
            requests = server.requests();
            runId = env.getWorkflowClient().fetchHistory(id).getHistory().getEvents(0)
                    .getWorkflowExecutionStartedEventAttributes().getOriginalExecutionRunId();
            assertTrace(id, runId, requests, server.port());
        }

        // The whole history replayed, by a worker whose runs tell the same telemetry of their end.
        Worker replaying = env.newWorker("replay-traced");
        replaying.registerWorkflowImplementationFactory(RunWorkflow.class, () -> new RunWorkflowImpl(
                TestSetups.setup(new ToolRegistry().register(new CountingTool()), b -> b.model("mock-model")),
                run -> second.telemetry.recordEndedRun(run.run(), run.result(), run.traceparent(), run.started(),
                        run.ended())));
        WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory(id), replaying);
        assertThat(first.spans()).hasSize(1);
        assertThat(second.spans()).hasSize(5);
    }

    /** A run started in a session is that session's conversation, as a local run of a stored session is. */
    @Test
    void theRunSpanOfASessionsRunNamesTheSessionAsItsConversation() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(CountingTool.done("hello"))));
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).apiKey(ApiKey.of(KEY)).build()) {
            DurableWorker worker = first.instrument(DurableWorker.builder(env.getWorkflowClient())
                    .provider(provider)
                    .tools(new ToolRegistry())
                    .loop(b -> b.model("mock-model"))).build();
            try {
                worker.start();
                DurableAgent agent = DurableAgent.builder(env.getWorkflowClient()).build();
                String id = agent.start("say hello", "weekly-report");
                assertThat(agent.follow(id).await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            } finally {
                worker.close();
            }
        }
        SpanData run = named(first.spans(), "invoke_agent bellows").getFirst();
        assertThat(run.getAttributes().get(CONVERSATION)).isEqualTo("weekly-report");
    }

    /** A history written before runs recorded their session's name still replays: its input reads as no session. */
    @Test
    void aRunInputWithoutTheSessionsNameReadsAsNoSession() {
        io.temporal.api.common.v1.Payload earlier = Json.dataConverter()
                .toPayload(java.util.Map.of("task", "go on", "previous", "bellows-session-s-1")).orElseThrow();
        assertThat(Json.dataConverter().fromPayload(earlier, dev.bellows.temporal.internal.RunInput.class,
                dev.bellows.temporal.internal.RunInput.class))
                .isEqualTo(new dev.bellows.temporal.internal.RunInput("go on", "bellows-session-s-1", null));
    }

    private void assertTrace(String workflowId, String runId, List<RecordedRequest> requests, int port) {
        // The first worker made the failed attempt, and nothing else.
        assertThat(first.spans()).extracting(SpanData::getName).containsExactly("chat mock-model");
        assertThat(first.spans().getFirst().getAttributes().get(ERROR_TYPE)).isEqualTo("503");
        List<SpanData> all = new java.util.ArrayList<>(first.spans());
        all.addAll(second.spans());
        assertThat(all).extracting(SpanData::getName).containsExactlyInAnyOrder(
                "invoke_agent bellows", "chat mock-model", "chat mock-model", "chat mock-model", "execute_tool count",
                "execute_tool task_completion");

        // The run's span: the one the workers' calls named as their parent, recorded once at the end.
        String traceparent = RunTrace.traceparent(env.getNamespace(), workflowId, runId);
        SpanData run = named(all, "invoke_agent bellows").getFirst();
        assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat("00-" + run.getTraceId() + "-" + run.getSpanId() + "-01").isEqualTo(traceparent);
        assertThat(run.getParentSpanContext().isValid()).isFalse();
        assertThat(run.getAttributes().asMap()).containsEntry(OPERATION, "invoke_agent")
                .containsEntry(AttributeKey.stringKey("gen_ai.agent.name"), "bellows")
                .containsEntry(AttributeKey.stringKey("bellows.loop.end_reason"), "task_completion")
                .doesNotContainKey(ERROR_TYPE)
                .doesNotContainKey(CONVERSATION);       // a run of no session
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        // One chat span per attempt: the failed one, its retry, the next request; each request
        // carried its own span's traceparent.
        List<SpanData> chats = named(all, "chat mock-model").stream()
                .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos)).toList();
        assertThat(requests).hasSize(3);
        for (int i = 0; i < 3; i++) {
            SpanData chat = chats.get(i);
            assertThat(chat.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(chat.getTraceId()).isEqualTo(run.getTraceId());
            assertThat(chat.getParentSpanId()).isEqualTo(run.getSpanId());
            assertThat(chat.getAttributes().asMap()).containsEntry(OPERATION, "chat")
                    .containsEntry(AttributeKey.stringKey("gen_ai.provider.name"), "openai")
                    .containsEntry(AttributeKey.stringKey("gen_ai.request.model"), "mock-model")
                    .containsEntry(AttributeKey.stringKey("server.address"), "127.0.0.1")
                    .containsEntry(AttributeKey.longKey("server.port"), (long) port);
            assertThat(requests.get(i).header("traceparent"))
                    .isEqualTo("00-" + chat.getTraceId() + "-" + chat.getSpanId() + "-01");
        }
        assertThat(chats.getFirst().getAttributes().get(ERROR_TYPE)).isEqualTo("503");
        assertThat(chats.getFirst().getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        for (SpanData answered : chats.subList(1, 3)) {
            assertThat(answered.getAttributes().asMap()).doesNotContainKey(ERROR_TYPE)
                    .containsEntry(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons"), List.of("stop"))
                    .containsKey(AttributeKey.longKey("gen_ai.usage.input_tokens"))
                    .containsKey(AttributeKey.longKey("gen_ai.usage.output_tokens"))
                    .containsKey(AttributeKey.stringKey("gen_ai.response.id"));
        }

        SpanData call = named(all, "execute_tool count").getFirst();
        assertThat(call.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(call.getTraceId()).isEqualTo(run.getTraceId());
        assertThat(call.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(call.getAttributes().asMap()).containsEntry(OPERATION, "execute_tool")
                .containsEntry(AttributeKey.stringKey("gen_ai.tool.name"), "count")
                .containsEntry(AttributeKey.stringKey("gen_ai.tool.call.id"), workflowId + "/tool-1")
                .doesNotContainKey(ERROR_TYPE)
                // content capture is off: neither arguments nor result
                .doesNotContainKey(AttributeKey.stringKey("gen_ai.tool.call.arguments"))
                .doesNotContainKey(AttributeKey.stringKey("gen_ai.tool.call.result"));

        // The run's task_completion, which the loop makes in the workflow, has its span as in a local run:
        // made once, by the worker that ended the run.
        SpanData completion = named(all, "execute_tool task_completion").getFirst();
        assertThat(completion.getTraceId()).isEqualTo(run.getTraceId());
        assertThat(completion.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(completion.getAttributes().asMap()).containsEntry(OPERATION, "execute_tool")
                .containsEntry(AttributeKey.stringKey("gen_ai.tool.name"), "task_completion")
                .doesNotContainKey(ERROR_TYPE);
        assertThat(second.spans()).contains(completion);

        // The run's span covers its calls.
        for (SpanData span : all) {
            assertThat(span.getEndEpochNanos()).isGreaterThanOrEqualTo(span.getStartEpochNanos());
        }

        // No secret anywhere: not the key, not an Authorization header.
        for (SpanData span : all) {
            span.getAttributes().forEach((key, value) ->
                    assertThat(String.valueOf(value)).doesNotContain(KEY).doesNotContain("Bearer"));
            assertThat(span.getStatus().getDescription()).doesNotContain(KEY);
        }

        // The metrics, from each worker's own calls: the first counts the run's first request, the
        // second the next one and the retry, under the error.type of the attempt the first made.
        List<MetricData> firsts = first.metrics();
        List<MetricData> seconds = second.metrics();
        assertThat(seconds).extracting(MetricData::getName)
                .contains("gen_ai.client.token.usage", "gen_ai.client.operation.duration", "bellows.model.retries",
                        "bellows.loop.iterations");
        Attributes model = Attributes.of(AttributeKey.stringKey("gen_ai.agent.name"), "bellows",
                AttributeKey.stringKey("gen_ai.provider.name"), "openai",
                AttributeKey.stringKey("gen_ai.request.model"), "mock-model");
        assertThat(sum(firsts, "bellows.loop.iterations", model)).isEqualTo(1);
        assertThat(sum(seconds, "bellows.loop.iterations", model)).isEqualTo(1);
        assertThat(sum(seconds, "bellows.model.retries", Attributes.of(
                AttributeKey.stringKey("gen_ai.provider.name"), "openai",
                AttributeKey.stringKey("gen_ai.request.model"), "mock-model",
                ERROR_TYPE, "503"))).isEqualTo(1);
    }

    private static List<SpanData> named(List<SpanData> spans, String name) {
        return spans.stream().filter(span -> span.getName().equals(name)).toList();
    }

    private static long sum(List<MetricData> metrics, String name, Attributes attributes) {
        return metrics.stream().filter(metric -> metric.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name))
                .getLongSumData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .mapToLong(LongPointData::getValue).sum();
    }
}
