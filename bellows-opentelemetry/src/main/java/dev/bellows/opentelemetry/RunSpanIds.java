package dev.bellows.opentelemetry;

import io.opentelemetry.sdk.trace.IdGenerator;
import java.util.Objects;

/**
 * The OpenTelemetry SDK's span and trace ids, except for the {@code invoke_agent} span of a run
 * carried out elsewhere ({@link BellowsTelemetry#recordEndedRun}), which gets the ids its
 * {@code traceparent} names: its calls' {@code chat} and {@code execute_tool} spans, recorded
 * while it ran, name that span as their parent. The OpenTelemetry API cannot choose a span's
 * id; the SDK's id generator can, so an application whose durable runs should have their run
 * span installs this one:
 *
 * <pre>{@code
 * SdkTracerProvider.builder()
 *         .setIdGenerator(RunSpanIds.of(IdGenerator.random()))
 *         ...
 * }</pre>
 *
 * Every other span's ids are {@code delegate}'s. Without it, a durable run's span is a child of
 * the span its calls name, in the same trace, instead of being it. Thread-safe. Needs
 * {@code io.opentelemetry:opentelemetry-sdk-trace}, which bellows-opentelemetry does not bring.
 */
public final class RunSpanIds implements IdGenerator {

    private final IdGenerator delegate;

    private RunSpanIds(IdGenerator delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Ids from {@code delegate}, except a durable run's span's. */
    public static RunSpanIds of(IdGenerator delegate) {
        return delegate instanceof RunSpanIds ids ? ids : new RunSpanIds(delegate);
    }

    @Override
    public String generateSpanId() {
        String[] preset = PresetIds.current();
        return preset != null ? preset[1] : delegate.generateSpanId();
    }

    @Override
    public String generateTraceId() {
        String[] preset = PresetIds.current();
        return preset != null ? preset[0] : delegate.generateTraceId();
    }
}
