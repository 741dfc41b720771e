package dev.bellows.cli;

import static dev.bellows.cli.OtlpReceiver.attributes;
import static dev.bellows.cli.OtlpReceiver.hex;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows run} as a real process exporting through the OpenTelemetry SDK's standard
 * variables to a real OTLP/HTTP receiver on 127.0.0.1, as cli.md's "Traces and metrics" says:
 * names, kinds, parentage, attributes, usage, the traceparent the model received, metrics,
 * a retried request, content off and on, the API key never; and an endpoint nobody listens on,
 * which costs the run nothing but one warning.
 */
class TelemetryEndToEndTest {

    private static final String KEY = "sk-planted-e2e-key-0123456789abcdef";

    @TempDir
    Path dir;

    record Result(int status, String out, String err) { }

    private Result bellows(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ChildJvm.bellows().java());
        command.add(BellowsCommand.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("out").toFile()).redirectError(dir.resolve("err").toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("OTEL_") || name.endsWith("_API_KEY")
                || name.startsWith("BELLOWS_"));
        builder.environment().put("HOME", dir.toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("bellows run ended").isTrue();
        return new Result(process.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")));
    }

    private static Map<String, String> otlp(OtlpReceiver receiver) {
        Map<String, String> env = new HashMap<>();
        env.put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
        env.put("OTEL_TRACES_EXPORTER", "otlp");
        env.put("OTEL_METRICS_EXPORTER", "otlp");
        env.put("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
        env.put("OPENAI_API_KEY", KEY);
        return env;
    }

    @Test
    void aRunExportsItsSpansAndMetricsToAnOtlpReceiver() throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver();
             MockLlmServer model = RunCommandTest.server(MockTurn.status(429).errorMessage("slow down"),
                     MockTurn.content(RunCommandTest.PLAN), MockTurn.content(RunCommandTest.complete("done")))) {
            Result run = bellows(otlp(receiver), "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model",
                    "Plan it, my key is " + KEY);

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("done\n");
            assertThat(run.err()).doesNotContain("OpenTelemetry");
            assertThat(receiver.serviceName()).contains("bellows");

            Span agent = only(receiver.spans("invoke_agent bellows"));
            assertThat(agent.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_INTERNAL);
            assertThat(agent.getParentSpanId().isEmpty()).isTrue();
            assertThat(strings(agent)).containsEntry("gen_ai.operation.name", "invoke_agent")
                    .containsEntry("gen_ai.agent.name", "bellows")
                    .containsEntry("gen_ai.provider.name", "openai")
                    .containsEntry("gen_ai.request.model", "mock-model")
                    .containsEntry("bellows.loop.end_reason", "task_completion")
                    .doesNotContainKey("error.type");

            List<Span> chats = receiver.spans("chat mock-model").stream()
                    .sorted(java.util.Comparator.comparingLong(Span::getStartTimeUnixNano)).toList();
            assertThat(chats).hasSize(3);
            List<RecordedRequest> requests = model.requests();
            assertThat(requests).hasSize(3);
            for (int i = 0; i < 3; i++) {
                Span chat = chats.get(i);
                assertThat(chat.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
                assertThat(chat.getTraceId()).isEqualTo(agent.getTraceId());
                assertThat(chat.getParentSpanId()).isEqualTo(agent.getSpanId());
                Map<String, AnyValue> attributes = attributes(chat.getAttributesList());
                assertThat(attributes.get("gen_ai.operation.name").getStringValue()).isEqualTo("chat");
                assertThat(attributes.get("gen_ai.provider.name").getStringValue()).isEqualTo("openai");
                assertThat(attributes.get("gen_ai.request.model").getStringValue()).isEqualTo("mock-model");
                assertThat(attributes.get("server.address").getStringValue()).isEqualTo("127.0.0.1");
                assertThat(attributes.get("server.port").getIntValue()).isEqualTo(model.port());
                assertThat(requests.get(i).header("traceparent"))
                        .isEqualTo("00-" + hex(chat.getTraceId()) + "-" + hex(chat.getSpanId()) + "-"
                                + String.format("%02x", chat.getFlags() & 0xff));
            }
            Span refused = chats.get(0);
            assertThat(attributes(refused.getAttributesList()).get("error.type").getStringValue()).isEqualTo("429");
            assertThat(refused.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
            for (Span answered : chats.subList(1, 3)) {
                Map<String, AnyValue> attributes = attributes(answered.getAttributesList());
                assertThat(attributes).doesNotContainKey("error.type");
                assertThat(attributes.get("gen_ai.usage.input_tokens").getIntValue()).isPositive();
                assertThat(attributes.get("gen_ai.usage.output_tokens").getIntValue()).isPositive();
                assertThat(attributes.get("gen_ai.response.finish_reasons").getArrayValue().getValues(0).getStringValue())
                        .isEqualTo("stop");
                assertThat(attributes).doesNotContainKeys("gen_ai.input.messages", "gen_ai.output.messages");
            }

            Span plan = only(receiver.spans("execute_tool update_plan"));
            assertThat(plan.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_INTERNAL);
            assertThat(plan.getParentSpanId()).isEqualTo(agent.getSpanId());
            assertThat(strings(plan)).containsEntry("gen_ai.operation.name", "execute_tool")
                    .containsEntry("gen_ai.tool.name", "update_plan")
                    .containsEntry("gen_ai.tool.call.id", "call_1_1")
                    .containsEntry("bellows.tool.server", "local")
                    .doesNotContainKeys("gen_ai.tool.call.arguments", "gen_ai.tool.call.result");
            assertThat(only(receiver.spans("execute_tool task_completion")).getParentSpanId()).isEqualTo(agent.getSpanId());

            Metric tokens = only(receiver.metrics("gen_ai.client.token.usage"));
            assertThat(tokens.getUnit()).isEqualTo("{token}");
            assertThat(tokens.getHistogram().getDataPointsList()).hasSize(2).allSatisfy(point -> {
                assertThat(point.getExplicitBoundsList()).containsExactly(1d, 4d, 16d, 64d, 256d, 1024d, 4096d, 16384d,
                        65536d, 262144d, 1048576d, 4194304d, 16777216d, 67108864d);
                assertThat(point.getCount()).isEqualTo(2);
            });
            long inputTokens = chats.subList(1, 3).stream().mapToLong(span ->
                    attributes(span.getAttributesList()).get("gen_ai.usage.input_tokens").getIntValue()).sum();
            HistogramDataPoint input = tokens.getHistogram().getDataPointsList().stream()
                    .filter(point -> attributes(point.getAttributesList()).get("gen_ai.token.type").getStringValue().equals("input"))
                    .findFirst().orElseThrow();
            assertThat(input.getSum()).isEqualTo((double) inputTokens);
            Metric duration = only(receiver.metrics("gen_ai.client.operation.duration"));
            assertThat(duration.getUnit()).isEqualTo("s");
            assertThat(duration.getHistogram().getDataPointsList()).extracting(HistogramDataPoint::getCount)
                    .containsExactlyInAnyOrder(2L, 1L);
            assertThat(duration.getHistogram().getDataPointsList().getFirst().getExplicitBoundsList())
                    .containsExactly(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
            assertThat(counter(receiver, "bellows.model.retries")).isEqualTo(1);
            assertThat(counter(receiver, "bellows.loop.iterations")).isEqualTo(2);
            // Bellows' metrics only: not the SDK's about itself (its span processor's processedSpans, queueSize)
            assertThat(receiver.metricNames()).isNotEmpty()
                    .allSatisfy(name -> assertThat(name).matches("(gen_ai|bellows)\\..+"));

            assertThat(receiver.received(KEY)).as("the API key reached the receiver").isFalse();
        }
    }

    @Test
    void contentIsExportedOnlyWhenAskedForAndTheKeyNever() throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver();
             MockLlmServer model = RunCommandTest.server(MockTurn.content(RunCommandTest.PLAN),
                     MockTurn.content(RunCommandTest.complete("done")))) {
            Map<String, String> env = otlp(receiver);
            env.put("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true");
            Result run = bellows(env, "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model",
                    "Plan it, my key is " + KEY);

            assertThat(run.status()).as(run.err()).isZero();
            Span agent = only(receiver.spans("invoke_agent bellows"));
            assertThat(strings(agent).get("gen_ai.input.messages")).contains("Plan it, my key is [REDACTED]");
            Span first = receiver.spans("chat mock-model").stream()
                    .min(java.util.Comparator.comparingLong(Span::getStartTimeUnixNano)).orElseThrow();
            assertThat(strings(first).get("gen_ai.input.messages")).contains("\"role\":\"user\"").contains("[REDACTED]");
            assertThat(strings(first).get("gen_ai.output.messages")).contains("update_plan");
            Span plan = only(receiver.spans("execute_tool update_plan"));
            assertThat(strings(plan).get("gen_ai.tool.call.arguments")).contains("\"description\":\"read\"");
            assertThat(strings(plan)).containsKey("gen_ai.tool.call.result");
            assertThat(receiver.received(KEY)).as("the API key reached the receiver").isFalse();
            assertThat(receiver.received("[REDACTED]")).isTrue();
        }
    }

    /**
     * docs/observability.md's collector example as written: the endpoint alone, no protocol
     * setting. The SDK's own default (gRPC) sent an OTLP/HTTP receiver {@code PRI * HTTP/2.0}
     * and exported nothing; Bellows' default is http/protobuf.
     */
    @Test
    void theDocumentedExampleExportsWithTheEndpointAlone() throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver();
             MockLlmServer model = RunCommandTest.server(MockTurn.content(RunCommandTest.PLAN),
                     MockTurn.content(RunCommandTest.complete("391")))) {
            Result run = bellows(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
                    "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model", "What is 17 * 23?");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.err()).doesNotContain("OpenTelemetry");
            assertThat(receiver.spans("invoke_agent bellows")).hasSize(1);
            assertThat(receiver.spans("chat mock-model")).hasSize(2);
            assertThat(receiver.metrics("gen_ai.client.token.usage")).isNotEmpty();
        }
    }

    /** One line, however many batches fail, naming the endpoint and protocol tried and what to set. */
    @Test
    void aFailedExportSaysInOneLineWhereAndHowItSentAndWhatToSet() throws Exception {
        int closed = closedPort();
        try (MockLlmServer model = RunCommandTest.server(MockTurn.content(RunCommandTest.PLAN),
                MockTurn.content(RunCommandTest.PLAN), MockTurn.content(RunCommandTest.complete("done")))) {
            Result run = bellows(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + closed),
                    "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model", "Plan it");

            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out()).isEqualTo("done\n");
            List<String> warnings = run.err().lines().filter(line -> line.contains("OpenTelemetry")
                    || line.contains("opentelemetry") || line.contains("WARN") || line.contains("SEVERE")).toList();
            assertThat(warnings).as(run.err()).singleElement().asString()
                    .startsWith("bellows: warning: OpenTelemetry could not export ")
                    .containsPattern("(traces|metrics) to http://127\\.0\\.0\\.1:" + closed
                            + "/v1/(traces|metrics) \\(http/protobuf\\): ")
                    .containsIgnoringCase("connection refused")
                    .contains("set OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_PROTOCOL");
            assertThat(run.err()).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void aFailedGrpcExportNamesTheGrpcEndpointAndTheSignalsOwnSetting() throws Exception {
        int closed = closedPort();
        try (MockLlmServer model = RunCommandTest.server(MockTurn.content(RunCommandTest.complete("done")))) {
            Result run = bellows(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + closed,
                            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc", "OTEL_METRICS_EXPORTER", "none"),
                    "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model", "Finish");

            assertThat(run.status()).as(run.err()).isZero();
            List<String> warnings = run.err().lines().filter(line -> line.contains("OpenTelemetry")).toList();
            assertThat(warnings).as(run.err()).singleElement().asString()
                    .contains("could not export traces to http://127.0.0.1:" + closed + " (grpc): ")
                    .contains("set OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
            assertThat(run.err()).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    private static int closedPort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void withoutAnExporterSettingNoSdkStartsAndNoTraceparentIsSent() throws Exception {
        try (MockLlmServer model = RunCommandTest.server(MockTurn.content(RunCommandTest.complete("done")))) {
            Result run = bellows(Map.of("OTEL_SERVICE_NAME", "not-an-exporter-setting"),
                    "run", "--base-url", model.baseUrl().toString(), "--model", "mock-model", "Finish");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(model.requests().getFirst().header("traceparent")).isNull();
        }
    }

    private static Map<String, String> strings(Span span) {
        Map<String, String> strings = new HashMap<>();
        attributes(span.getAttributesList()).forEach((key, value) -> {
            if (value.hasStringValue()) {
                strings.put(key, value.getStringValue());
            }
        });
        return strings;
    }

    private static long counter(OtlpReceiver receiver, String name) {
        return receiver.metrics(name).stream().flatMap(metric -> metric.getSum().getDataPointsList().stream())
                .mapToLong(NumberDataPoint::getAsInt).sum();
    }

    private static <T> T only(List<T> items) {
        assertThat(items).hasSize(1);
        return items.getFirst();
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
