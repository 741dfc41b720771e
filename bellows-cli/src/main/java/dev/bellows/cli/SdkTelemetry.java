package dev.bellows.cli;

import dev.bellows.agent.AgentBuilder;
import dev.bellows.opentelemetry.BellowsTelemetry;
import dev.bellows.opentelemetry.RunSpanIds;
import dev.bellows.temporal.DurableWorker;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.bellows.secret.Secrets;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The OpenTelemetry SDK as its autoconfiguration sets it up from {@code OTEL_*} variables and
 * {@code -Dotel.*} properties (only loaded when {@link Telemetry#start} finds an exporter
 * setting). Bellows changes four defaults, each of which a setting of the user's overrides:
 * the OTLP protocol is {@code http/protobuf} (the OpenTelemetry specification's recommended
 * default, and what the documented {@code OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318}
 * examples need; the Java SDK's own default is gRPC, which an OTLP/HTTP receiver cannot read),
 * the service name is {@code bellows}, no log exporter starts (Bellows emits no log records),
 * and a failed export is not retried ({@code otel.java.exporter.otlp.retry.disabled}), so that
 * an endpoint that cannot be reached costs one failed attempt, not a back-off at exit. Its id
 * generator is {@link RunSpanIds} over the SDK's random one, so that a durable run's span
 * recorded by {@code bellows worker} has the id its calls' spans name (docs/temporal.md, "Traces").
 * Only Bellows' own metrics are exported: the SDK's about itself (its span processor's
 * {@code processedSpans} and {@code queueSize}, its exporters' counts) are left out.
 *
 * <p>An export that fails prints one warning on standard error for the whole process, never
 * one per batch, naming the endpoint, the protocol and the settings to change; the SDK's own
 * log lines are off, unless {@code BELLOWS_DEBUG=1} or a {@code java.util.logging}
 * configuration of the user's says otherwise. Closing (and a
 * shutdown hook, for Ctrl-C twice and SIGTERM) exports what is left, waiting at most
 * {@value #FLUSH_SECONDS} seconds.
 */
final class SdkTelemetry implements Telemetry {

    static final long FLUSH_SECONDS = 5;

    /** The OTLP protocol when no setting names one: the specification's recommended default. */
    static final String DEFAULT_PROTOCOL = "http/protobuf";

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
                        "otel.exporter.otlp.protocol", DEFAULT_PROTOCOL,
                        "otel.service.name", "bellows",
                        "otel.logs.exporter", "none",
                        "otel.java.exporter.otlp.retry.disabled", "true"))
                // A durable run's span gets the ids its calls' spans name as their parent.
                .addTracerProviderCustomizer((tracing, config) -> tracing.setIdGenerator(RunSpanIds.of(IdGenerator.random())))
                .addSpanExporterCustomizer((exporter, config) ->
                        new WatchedSpans(exporter, warning, Target.of(exporter, config, "traces")))
                .addMetricExporterCustomizer((exporter, config) ->
                        new WatchedMetrics(exporter, warning, Target.of(exporter, config, "metrics")))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        return new SdkTelemetry(sdk, BellowsTelemetry.create(sdk));
    }

    /**
     * Where and how an exporter sends, for its warning: an OTLP exporter's endpoint and protocol
     * as the SDK reads them (or their defaults), and the variables that set them.
     *
     * @param signal {@code traces} or {@code metrics}
     * @param where  {@code to URL (protocol)}, or the exporter's class for one that is not OTLP
     * @param advice what to set, or empty
     */
    record Target(String signal, String where, String advice) {

        static Target of(Object exporter, ConfigProperties config, String signal) {
            if (!exporter.getClass().getSimpleName().startsWith("Otlp")) {
                return new Target(signal, "with " + exporter.getClass().getSimpleName(), "");
            }
            String own = "otel.exporter.otlp." + signal + ".";
            String protocol = config.getString(own + "protocol", config.getString("otel.exporter.otlp.protocol",
                    DEFAULT_PROTOCOL));
            return new Target(signal, "to " + endpoint(config, signal, protocol) + " (" + protocol + ")",
                    "; set " + variable(config, signal, "endpoint") + " and " + variable(config, signal, "protocol")
                            + " to where and how your collector listens (http/protobuf on port 4318, grpc on 4317)");
        }

        /** The variable that sets {@code setting}: the signal's own when it is the one given. */
        private static String variable(ConfigProperties config, String signal, String setting) {
            String own = config.getString("otel.exporter.otlp." + signal + "." + setting) != null ? signal + "_" : "";
            return ("OTEL_EXPORTER_OTLP_" + own + setting).toUpperCase(Locale.ROOT);
        }

        /** The URL the OTLP exporter of {@code signal} sends to, as the SDK derives it. */
        private static String endpoint(ConfigProperties config, String signal, String protocol) {
            String own = config.getString("otel.exporter.otlp." + signal + ".endpoint");
            if (own != null) {
                return own;
            }
            boolean grpc = protocol.equals("grpc");
            String base = config.getString("otel.exporter.otlp.endpoint",
                    grpc ? "http://localhost:4317" : "http://localhost:4318");
            return grpc ? base : base.replaceFirst("/$", "") + "/v1/" + signal;
        }

        /** The one line a failure prints, {@code reason} being {@code ": Connection refused"} or the like. */
        String warning(String reason) {
            return "bellows: warning: OpenTelemetry could not export " + signal + " " + where + reason + advice
                    + "; what cannot be exported is dropped, and runs go on";
        }
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

        CompletableResultCode watch(CompletableResultCode result, Target target) {
            return result.whenComplete(() -> {
                if (!result.isSuccess() && said.compareAndSet(false, true)) {
                    stderr.println(Secrets.redact(target.warning(reason(result.getFailureThrowable()))));
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

    private record WatchedSpans(SpanExporter exporter, Warning warning, Target target) implements SpanExporter {

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return warning.watch(exporter.export(spans), target);
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

    /**
     * The metric exporter, given Bellows' own metrics only: the SDK records some about itself
     * (its batch span processor's {@code processedSpans} and {@code queueSize}, its exporters'
     * counts, under scopes of its own), which say nothing about agents and would crowd a
     * dashboard of {@code gen_ai.*} metrics. Filtering here leaves out whichever the SDK adds.
     */
    private record WatchedMetrics(MetricExporter exporter, Warning warning, Target target) implements MetricExporter {

        @Override
        public CompletableResultCode export(Collection<MetricData> metrics) {
            List<MetricData> own = metrics.stream().filter(metric ->
                    metric.getInstrumentationScopeInfo().getName().equals(BellowsTelemetry.INSTRUMENTATION_SCOPE)).toList();
            return own.isEmpty() ? CompletableResultCode.ofSuccess() : warning.watch(exporter.export(own), target);
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
