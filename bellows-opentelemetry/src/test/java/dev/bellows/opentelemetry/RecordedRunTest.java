package dev.bellows.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.RunContext;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.secret.Secrets;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/**
 * The span of a run recorded after it ended ({@link BellowsTelemetry#recordEndedRun}), as a
 * durable run's worker records it: with the ids its traceparent names when the SDK's id generator
 * is {@link RunSpanIds}, a child of that span otherwise; times, end reason and error as given.
 * Its calls' spans, given that traceparent as a run attribute, are its children
 * (DurableTracingTest in bellows-temporal shows them, through a real worker).
 */
class RecordedRunTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    record Run(String agentName, Optional<String> sessionName, String task, ConcurrentMap<String, Object> attributes)
            implements RunContext {
        @Override
        public int iteration() {
            return 0;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }
    }

    private static SpanData record(IdGenerator ids, boolean capture, AgentResult result, String task) {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .setIdGenerator(ids).addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build()) {
            BellowsTelemetry telemetry = BellowsTelemetry.builder(sdk).captureMessageContent(capture).build();
            telemetry.recordEndedRun(new Run("bellows", Optional.empty(), task, new ConcurrentHashMap<>()), result,
                    TRACEPARENT, Instant.ofEpochSecond(1_000), Instant.ofEpochSecond(1_042));
            assertThat(spans.getFinishedSpanItems()).hasSize(1);
            return spans.getFinishedSpanItems().getFirst();
        }
    }

    @Test
    void withRunSpanIdsTheSpanIsTheOneItsTraceparentNames() {
        SpanData run = record(RunSpanIds.of(IdGenerator.random()), false,
                new AgentResult(LoopEndReason.TASK_COMPLETION, "done"), "");
        assertThat(run.getName()).isEqualTo("invoke_agent bellows");
        assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(run.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(run.getSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(run.getParentSpanContext().isValid()).isFalse();
        assertThat(run.getStartEpochNanos()).isEqualTo(1_000_000_000_000L);
        assertThat(run.getEndEpochNanos()).isEqualTo(1_042_000_000_000L);
        assertThat(run.getAttributes().asMap()).containsEntry(GenAi.OPERATION_NAME, "invoke_agent")
                .containsEntry(GenAi.AGENT_NAME, "bellows")
                .containsEntry(GenAi.LOOP_END_REASON, "task_completion")
                .doesNotContainKey(GenAi.ERROR_TYPE)
                .doesNotContainKey(GenAi.OUTPUT_MESSAGES);
        // The ids are the run's span's alone: the next span gets the SDK's own.
        assertThat(RunSpanIds.of(IdGenerator.random()).generateSpanId()).isNotEqualTo("b7ad6b7169203331");
    }

    @Test
    void withAnotherIdGeneratorTheSpanIsAChildOfTheOneItsTraceparentNamesInItsTrace() {
        SpanData run = record(IdGenerator.random(), false, new AgentResult(LoopEndReason.MAX_ITERATIONS, "gave up"), "");
        assertThat(run.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(run.getParentSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(run.getSpanId()).isNotEqualTo("b7ad6b7169203331");
        assertThat(run.getAttributes().get(GenAi.ERROR_TYPE)).isEqualTo("max_iterations");
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    }

    @Test
    void aFailedRunsErrorAndTheCapturedContentHaveNoSecret() {
        Secrets.register("sk-recorded-run-0123456789");
        SpanData failed = record(RunSpanIds.of(IdGenerator.random()), true,
                new AgentResult(LoopEndReason.ERROR, "401 for key sk-recorded-run-0123456789"), "use sk-recorded-run-0123456789");
        assertThat(failed.getAttributes().get(GenAi.ERROR_TYPE)).isEqualTo("error");
        assertThat(failed.getStatus().getDescription()).contains("401").doesNotContain("sk-recorded-run-0123456789");
        assertThat(failed.getAttributes().get(GenAi.INPUT_MESSAGES)).contains("use ")
                .doesNotContain("sk-recorded-run-0123456789");

        SpanData answered = record(RunSpanIds.of(IdGenerator.random()), true,
                new AgentResult(LoopEndReason.TASK_COMPLETION, "the answer"), "");
        assertThat(answered.getAttributes().get(GenAi.OUTPUT_MESSAGES)).contains("the answer");
        assertThat(answered.getAttributes().asMap()).doesNotContainKey(GenAi.INPUT_MESSAGES);   // the worker has no task
    }
}
