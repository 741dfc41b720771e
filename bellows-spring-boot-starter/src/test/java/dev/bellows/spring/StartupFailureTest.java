package dev.bellows.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;

/** What a user sees when the properties cannot make an agent: Spring Boot's report, no stack trace. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    /** The session store's folder: without it the application would open one under the user's home. */
    @TempDir
    Path sessions;

    private void start(String... args) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        // without the machine's environment variables: a BELLOWS_MODEL there would give the model
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        application.setEnvironment(environment);
        String[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = "--bellows.sessions-directory=" + sessions;
        application.run(all);
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
