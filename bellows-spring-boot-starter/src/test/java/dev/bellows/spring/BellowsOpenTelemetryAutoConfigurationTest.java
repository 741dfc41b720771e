package dev.bellows.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.Agent;
import dev.bellows.agent.Session;
import dev.bellows.opentelemetry.BellowsTelemetry;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;

class BellowsOpenTelemetryAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(context -> context.getEnvironment().getPropertySources()
                    .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME))
            .withConfiguration(AutoConfigurations.of(BellowsAutoConfiguration.class,
                    BellowsOpenTelemetryAutoConfiguration.class))
            .withBean(Provider.class, () -> new ScriptedProvider(MockScript.of(MockTurn.content(
                    "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"5\"}}</tool>"))))
            .withPropertyValues("bellows.model=scripted");

    @Test
    void theApplicationsOpenTelemetryBeanTracesTheAgentsRuns() {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
        runner.withBean(OpenTelemetry.class, () -> sdk)
                .withPropertyValues(BellowsTelemetry.CAPTURE_CONTENT_PROPERTY + "=true")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(BellowsTelemetry.class);
                    assertThat(context.getBean(BellowsTelemetry.class).capturesMessageContent()).isTrue();
                    context.getBean(Agent.class).run("What is 2 + 3?", new Session()).await();
                    assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName)
                            .contains("invoke_agent bellows", "chat scripted", "execute_tool task_completion");
                });
        sdk.close();
    }

    @Test
    void withoutAnOpenTelemetryBeanNothingIsRegistered() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(BellowsTelemetry.class);
            assertThat(context.getBeansOfType(AgentCustomizer.class)).isEmpty();
        });
    }
}
