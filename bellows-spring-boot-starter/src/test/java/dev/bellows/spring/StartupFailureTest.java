package dev.bellows.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** What a user sees when the properties cannot make an agent: Spring Boot's report, no stack trace. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    private static void start(String... args) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.run(args);
    }

    @Test
    void without_a_key_the_report_says_which_variable_or_property_to_set(CapturedOutput output) {
        // Command-line properties come before the environment: whatever this machine has, no key.
        assertThatThrownBy(() -> start("--OPENAI_API_KEY=", "--bellows.api-key="))
                .hasRootCauseInstanceOf(BellowsConfigurationException.class);
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("No API key for the openai provider's own endpoint.")
                .contains("Set the environment variable OPENAI_API_KEY or the property bellows.api-key");
    }

    @Test
    void a_base_url_without_a_model_says_to_set_bellows_model(CapturedOutput output) {
        assertThatThrownBy(() -> start("--bellows.base-url=http://localhost:11434/v1"))
                .hasRootCauseInstanceOf(BellowsConfigurationException.class);
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("bellows.model is not set, and the server at http://localhost:11434/v1 has no default model.")
                .contains("Set bellows.model to the model that server should run");
    }
}
