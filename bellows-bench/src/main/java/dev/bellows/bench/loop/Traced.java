package dev.bellows.bench.loop;

import dev.bellows.opentelemetry.BellowsTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenTelemetry SDK as the command line sets it up (every span sampled, a batch span
 * processor, a periodic metric reader), with exporters that count what they are given and send
 * nothing: what the loop pays for its spans and metrics, without a network in the figures.
 */
record Traced(OpenTelemetrySdk sdk, BellowsTelemetry telemetry, AtomicLong spans) implements AutoCloseable {

    static Traced start() {
        AtomicLong spans = new AtomicLong();
        SpanExporter counting = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> batch) {
                spans.addAndGet(batch.size());
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        MetricExporter discarding = new MetricExporter() {
            @Override
            public CompletableResultCode export(Collection<MetricData> metrics) {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public AggregationTemporality getAggregationTemporality(InstrumentType type) {
                return AggregationTemporality.CUMULATIVE;
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(counting).build()).build())
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(PeriodicMetricReader.create(discarding)).build())
                .build();
        return new Traced(sdk, BellowsTelemetry.builder(sdk).captureMessageContent(false).build(), spans);
    }

    @Override
    public void close() {
        sdk.close();
    }
}
