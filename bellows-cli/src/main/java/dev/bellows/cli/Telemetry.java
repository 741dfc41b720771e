package dev.bellows.cli;

import dev.bellows.agent.AgentBuilder;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * OpenTelemetry for the commands that run agents ({@code run}, {@code chat}, {@code serve},
 * {@code worker}), as cli.md's "Traces and metrics" says: with any of the SDK's exporter
 * settings present ({@code OTEL_TRACES_EXPORTER}, {@code OTEL_METRICS_EXPORTER},
 * {@code OTEL_LOGS_EXPORTER}, {@code OTEL_EXPORTER_*}, or the same as {@code -Dotel.*}
 * properties) the SDK's autoconfiguration starts and every agent the command builds is
 * {@linkplain #instrument instrumented}; with none, {@link #OFF}: no SDK, nothing registered
 * on any agent, and no OpenTelemetry class loaded.
 *
 * <pre>{@code
 * try (Telemetry telemetry = Telemetry.start(root.host, root.stderr)) {
 *     DefaultAgent agent = telemetry.instrument(DefaultAgent.builder()...).build();
 *     ...
 * }   // flushed and shut down here (a shutdown hook does it on Ctrl-C and SIGTERM)
 * }</pre>
 */
sealed interface Telemetry extends AutoCloseable permits Telemetry.Off, SdkTelemetry {

    /** No OpenTelemetry: agents are built as they are. */
    Telemetry OFF = new Off();

    /**
     * The SDK, configured by the environment and system properties exactly as its
     * autoconfiguration reads them, when any exporter setting is there; else {@link #OFF}.
     *
     * <p>What reaches a span has every secret of the process replaced ({@code Secrets}).
     *
     * @param stderr where the one warning of an exporter that cannot export goes
     */
    static Telemetry start(Host host, PrintWriter stderr) {
        if (!requested(host.env(), System.getProperties())) {
            return OFF;
        }
        return SdkTelemetry.start(stderr, "1".equals(host.env().get("BELLOWS_DEBUG")));
    }

    /**
     * Whether an exporter is configured: an {@code OTEL_*_EXPORTER} or {@code OTEL_EXPORTER_*}
     * variable, or its {@code otel.*} system property, and the SDK not disabled.
     */
    static boolean requested(Map<String, String> env, Properties properties) {
        String disabled = properties.getProperty("otel.sdk.disabled", env.getOrDefault("OTEL_SDK_DISABLED", ""));
        if (disabled.strip().toLowerCase(Locale.ROOT).equals("true")) {
            return false;
        }
        for (Map.Entry<String, String> variable : env.entrySet()) {
            if (variable.getValue() != null && !variable.getValue().isBlank() && exporterSetting(variable.getKey()
                    .toLowerCase(Locale.ROOT).replace('_', '.'))) {
                return true;
            }
        }
        for (String name : properties.stringPropertyNames()) {
            if (!properties.getProperty(name).isBlank() && exporterSetting(name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean exporterSetting(String property) {
        return property.equals("otel.traces.exporter") || property.equals("otel.metrics.exporter")
                || property.equals("otel.logs.exporter") || property.startsWith("otel.exporter.");
    }

    /** Adds the tracing interceptors to {@code builder} (nothing when off) and returns it. */
    <B extends AgentBuilder<B, ?>> B instrument(B builder);

    /**
     * A worker's durable runs traced (nothing when off): {@code chat} and {@code execute_tool}
     * spans around the calls its activities make, children of the run's span, and the run's
     * {@code invoke_agent} span recorded by the worker that ends it (docs/temporal.md, "Traces").
     */
    dev.bellows.temporal.DurableWorker.Builder instrument(dev.bellows.temporal.DurableWorker.Builder builder);

    /**
     * The trace context headers ({@code traceparent}) of the span current on the calling thread,
     * for a request made there (an HTTP MCP call inside a tool call); empty when off.
     */
    Map<String, String> traceHeaders();

    /**
     * {@code options} with each HTTP request to a remote MCP server carrying the trace context
     * current where it is sent (in a tool call, its {@code execute_tool} span's); unchanged when off.
     */
    default dev.bellows.mcp.McpClientOptions mcp(dev.bellows.mcp.McpClientOptions options) {
        return this == OFF ? options : options.withRequestHeaders(this::traceHeaders);
    }

    /** Exports what is left and stops the SDK, waiting a bounded time; nothing when off. */
    @Override
    void close();

    /** No OpenTelemetry configured. */
    final class Off implements Telemetry {

        private Off() {
        }

        @Override
        public <B extends AgentBuilder<B, ?>> B instrument(B builder) {
            return builder;
        }

        @Override
        public dev.bellows.temporal.DurableWorker.Builder instrument(dev.bellows.temporal.DurableWorker.Builder builder) {
            return builder;
        }

        @Override
        public Map<String, String> traceHeaders() {
            return Map.of();
        }

        @Override
        public void close() {
        }
    }
}
