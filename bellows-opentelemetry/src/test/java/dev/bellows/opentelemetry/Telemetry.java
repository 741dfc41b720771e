package dev.bellows.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Optional;

/** A real OpenTelemetry SDK whose spans and metrics the test reads from the SDK's in-memory exporters. */
final class Telemetry implements AutoCloseable {

    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();

    List<SpanData> spans() {
        return spans.getFinishedSpanItems();
    }

    List<SpanData> named(String name) {
        return spans().stream().filter(span -> span.getName().equals(name)).toList();
    }

    SpanData only(String name) {
        List<SpanData> found = named(name);
        if (found.size() != 1) {
            throw new AssertionError("expected one span " + name + ", got " + spans().stream().map(SpanData::getName).toList());
        }
        return found.getFirst();
    }

    List<MetricData> collect() {
        return List.copyOf(metrics.collectAllMetrics());
    }

    static Optional<MetricData> metric(List<MetricData> all, String name) {
        return all.stream().filter(metric -> metric.getName().equals(name)).findFirst();
    }

    static <T> T attribute(SpanData span, AttributeKey<T> key) {
        return span.getAttributes().get(key);
    }

    @Override
    public void close() {
        sdk.close();
    }
}
