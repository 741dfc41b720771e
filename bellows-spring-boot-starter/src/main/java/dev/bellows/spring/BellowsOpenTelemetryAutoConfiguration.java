package dev.bellows.spring;

import dev.bellows.opentelemetry.BellowsTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Traces and metrics of every run of the auto-configured agent, through the application's own
 * {@link OpenTelemetry} bean (Spring Boot's, or one the application defines), when the
 * application has bellows-opentelemetry: spans and metrics as docs/observability.md lists them.
 * Content capture follows {@code otel.instrumentation.genai.capture.message.content} (the
 * environment variable {@code OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT} included, as
 * Spring reads it), off unless {@code true}. Without an {@code OpenTelemetry} bean nothing is
 * registered. A {@link BellowsTelemetry} bean of the application's replaces the one made here.
 */
@AutoConfiguration(before = BellowsAutoConfiguration.class, afterName = {
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration"})
@ConditionalOnClass({OpenTelemetry.class, BellowsTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
public class BellowsOpenTelemetryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public BellowsTelemetry bellowsTelemetry(OpenTelemetry openTelemetry, Environment environment) {
        return BellowsTelemetry.builder(openTelemetry)
                .captureMessageContent(environment.getProperty(BellowsTelemetry.CAPTURE_CONTENT_PROPERTY, Boolean.class, false))
                .build();
    }

    /** The telemetry's interceptors on the auto-configured agent's builder. */
    @Bean
    public AgentCustomizer bellowsTelemetryCustomizer(BellowsTelemetry telemetry) {
        return builder -> builder.runInterceptor(telemetry.runInterceptor())
                .modelInterceptor(telemetry.modelInterceptor())
                .toolInterceptor(telemetry.toolInterceptor());
    }
}
