package dev.bellows.cli;

import dev.bellows.agent.AgentBuilder;
import dev.bellows.opentelemetry.BellowsTelemetry;
import dev.bellows.opentelemetry.RunSpanIds;
import dev.bellows.temporal.DurableWorker;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.metrics.Aggregation;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.bellows.secret.Secrets;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The OpenTelemetry SDK as its autoconfiguration sets it up from {@code OTEL_*} variables and
 * {@code -Dotel.*} properties (only loaded when {@link Telemetry#start} finds an exporter
 * setting). Bellows changes three defaults, each of which a setting of the user's overrides:
 * the service name is {@code bellows}, no log exporter starts (Bellows emits no log records),
 * and a failed export is not retried ({@code otel.java.exporter.otlp.retry.disabled}), so that
 * an endpoint that cannot be reached costs one failed attempt, not a back-off at exit. Its id
 * generator is {@link RunSpanIds} over the SDK's random one, so that a durable run's span
 * recorded by {@code bellows worker} has the id its calls' spans name (docs/temporal.md, "Traces").
 *
 * <p>An export that fails prints one warning on standard error for the whole process, never
 * one per span; the SDK's own log lines are off, unless {@code BELLOWS_DEBUG=1} or a
 * {@code java.util.logging} configuration of the user's says otherwise. Closing (and a
 * shutdown hook, for Ctrl-C twice and SIGTERM) exports what is left, waiting at most
 * {@value #FLUSH_SECONDS} seconds.
 */
final class SdkTelemetry implements Telemetry {

    static final long FLUSH_SECONDS = 5;

    /** Held because java.util.logging keeps its loggers only weakly. */
    private static Logger sdkLogging;

    private final OpenTelemetrySdk sdk;
    private final BellowsTelemetry telemetry;
    private CompletableResultCode shutdown;     // guarded by this: the SDK's, once started
    private final Thread hook;

    private SdkTelemetry(OpenTelemetrySdk sdk, BellowsTelemetry telemetry) {
        this.sdk = sdk;
        this.telemetry = telemetry;
        this.hook = new Thread(this::shutdown, "bellows-telemetry-flush");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    static SdkTelemetry start(PrintWriter stderr, boolean debug) {
        quietSdkLogging(debug);
        Warning warning = new Warning(stderr);
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of(
                        "otel.service.name", "bellows",
                        "otel.logs.exporter", "none",
                        "otel.java.exporter.otlp.retry.disabled", "true"))
                // A durable run's span gets the ids its calls' spans name as their parent.
                .addTracerProviderCustomizer((tracing, config) -> tracing.setIdGenerator(RunSpanIds.of(IdGenerator.random())))
                .addSpanExporterCustomizer((exporter, config) ->
                        new WatchedSpans(exporter, warning, endpoint(config, "traces")))
                .addMetricExporterCustomizer((exporter, config) ->
                        new WatchedMetrics(exporter, warning, endpoint(config, "metrics")))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        return new SdkTelemetry(sdk, BellowsTelemetry.create(sdk));
    }

    /** Where the OTLP exporter of {@code signal} sends, for the warning: as the SDK reads it, or its default. */
    private static String endpoint(io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties config, String signal) {
        String own = config.getString("otel.exporter.otlp." + signal + ".endpoint");
        if (own != null) {
            return own;
        }
        String base = config.getString("otel.exporter.otlp.endpoint");
        String protocol = config.getString("otel.exporter.otlp." + signal + ".protocol",
                config.getString("otel.exporter.otlp.protocol", "http/protobuf"));
        if (base == null) {
            return protocol.equals("grpc") ? "http://localhost:4317" : "http://localhost:4318/v1/" + signal;
        }
        return protocol.equals("grpc") ? base : base.replaceFirst("/$", "") + "/v1/" + signal;
    }

    /** The SDK logs each failed export with a stack trace: the one warning of {@link Warning} says it once. */
    private static synchronized void quietSdkLogging(boolean debug) {
        boolean configuredByUser = System.getProperty("java.util.logging.config.file") != null
                || System.getProperty("java.util.logging.config.class") != null;
        if (!debug && !configuredByUser && sdkLogging == null) {
            sdkLogging = Logger.getLogger("io.opentelemetry");
            sdkLogging.setLevel(Level.OFF);
        }
    }

    @Override
    public <B extends AgentBuilder<B, ?>> B instrument(B builder) {
        return telemetry.instrument(builder);
    }

    @Override
    public DurableWorker.Builder instrument(DurableWorker.Builder builder) {
        return builder.modelInterceptor(telemetry.modelInterceptor())
                .toolInterceptor(telemetry.toolInterceptor())
                .onRunEnded(run -> telemetry.recordEndedRun(run.run(), run.result(), run.traceparent(), run.started(),
                        run.ended()));
    }

    @Override
    public Map<String, String> traceHeaders() {
        return telemetry.traceHeaders();
    }

    /**
     * Exports what is left and stops the SDK. The shutdown hook stays registered until that is
     * done: a process that exits meanwhile (SIGTERM's grace ending in {@code System.exit}) runs
     * it, and it waits for the same export instead of letting the JVM halt in its middle.
     */
    @Override
    public void close() {
        shutdown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, or has run, the same shutdown
        }
    }

    /** The SDK's shutdown, started once; every caller waits for it (at most {@value #FLUSH_SECONDS} s). */
    private void shutdown() {
        CompletableResultCode result;
        synchronized (this) {
            if (shutdown == null) {
                shutdown = sdk.shutdown();
            }
            result = shutdown;
        }
        result.join(FLUSH_SECONDS, TimeUnit.SECONDS);
    }

    /** One line on standard error the first time an export fails; nothing after. */
    static final class Warning {
        private final PrintWriter stderr;
        private final AtomicBoolean said = new AtomicBoolean();

        Warning(PrintWriter stderr) {
            this.stderr = stderr;
        }

        CompletableResultCode watch(CompletableResultCode result, String what, String endpoint) {
            return result.whenComplete(() -> {
                if (!result.isSuccess() && said.compareAndSet(false, true)) {
                    stderr.println(Secrets.redact("bellows: warning: OpenTelemetry could not export " + what + " to "
                            + endpoint + reason(result.getFailureThrowable())
                            + "; what cannot be exported is dropped, and runs go on"));
                    stderr.flush();
                }
            });
        }

        /** The innermost cause's words ({@code Connection refused}), without exception class names. */
        private static String reason(Throwable failure) {
            if (failure == null) {
                return "";
            }
            Throwable root = failure;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String message = root.getMessage() != null ? root.getMessage() : failure.getMessage();
            return message == null || message.isBlank() ? " (" + root.getClass().getSimpleName() + ")"
                    : ": " + BellowsCommand.oneLine(message);
        }
    }

    private record WatchedSpans(SpanExporter exporter, Warning warning, String endpoint) implements SpanExporter {

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return warning.watch(exporter.export(spans), "spans", endpoint);
        }

        @Override
        public CompletableResultCode flush() {
            return exporter.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return exporter.shutdown();
        }
    }

    private record WatchedMetrics(MetricExporter exporter, Warning warning, String endpoint) implements MetricExporter {

        @Override
        public CompletableResultCode export(Collection<MetricData> metrics) {
            return warning.watch(exporter.export(metrics), "metrics", endpoint);
        }

        @Override
        public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
            return exporter.getAggregationTemporality(instrumentType);
        }

        @Override
        public Aggregation getDefaultAggregation(InstrumentType instrumentType) {
            return exporter.getDefaultAggregation(instrumentType);
        }

        @Override
        public MemoryMode getMemoryMode() {
            return exporter.getMemoryMode();
        }

        @Override
        public CompletableResultCode flush() {
            return exporter.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return exporter.shutdown();
        }
    }
}
