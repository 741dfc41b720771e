/** GenAI spans and metrics for Bellows' runs, as interceptors. */
module dev.bellows.opentelemetry {
    requires transitive dev.bellows.core;
    // OpenTelemetry's jars name their modules (Automatic-Module-Name), without module-info.
    requires transitive io.opentelemetry.api;
    requires transitive io.opentelemetry.context;
    // Optional: only RunSpanIds needs the SDK (an IdGenerator), and only when it is used.
    requires static io.opentelemetry.sdk.trace;
    requires static io.opentelemetry.sdk.common;

    exports dev.bellows.opentelemetry;
}
