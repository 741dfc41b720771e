package dev.bellows.spring;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.ToolSource;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;

/** The auto-configuration's conditions and properties, each in a context of its own. */
class BellowsAutoConfigurationTest {

    private static final String SECRET = "sk-test-0123456789abcdef";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            // without the machine's environment variables: an OPENAI_API_KEY or BELLOWS_MODEL there
            // would change what these tests see (Spring reads them as properties)
            .withInitializer(context -> context.getEnvironment().getPropertySources()
                    .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME))
            .withConfiguration(AutoConfigurations.of(BellowsAutoConfiguration.class));

    record Words(String text) { }

    static Tool wordCount() {
        return TypedTool.of("word_count", "Counts the words of a text", Words.class,
                (context, words) -> ToolResult.of(words.text().trim().split("\\s+").length));
    }

    @Configuration(proxyBeanMethods = false)
    static class ToolBeans {
        final AtomicBoolean sourceClosed = new AtomicBoolean();

        @Bean
        Tool wordCountTool() {
            return wordCount();
        }

        @Bean
        ToolSource weatherServer() {
            Tool forecast = TypedTool.of("forecast", "The weather", Words.class, (context, words) -> ToolResult.of("sunny"));
            return new ToolSource() {
                @Override
                public String serverName() {
                    return "weather";
                }

                @Override
                public List<Tool> tools() {
                    return List.of(forecast);
                }

                @Override
                public void close() {
                    sourceClosed.set(true);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ScriptedModel {
        static final List<AgentEvent> HEARD = new CopyOnWriteArrayList<>();

        @Bean
        Tool wordCountTool() {
            return wordCount();
        }

        @Bean
        AgentListener recorder() {
            return HEARD::add;
        }
    }

    @Test
    void a_base_url_and_a_model_give_an_openai_compatible_agent_with_the_tool_beans() {
        runner.withUserConfiguration(ToolBeans.class)
                .withPropertyValues("bellows.base-url=http://127.0.0.1:8931/v1", "bellows.model=llama3.1")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Agent.class);
                    OpenAiProvider provider = context.getBean(OpenAiProvider.class);
                    assertThat(provider.baseUrl()).hasToString("http://127.0.0.1:8931/v1");
                    ToolRegistry registry = context.getBean(ToolRegistry.class);
                    assertThat(registry.find("local", "word_count")).isPresent();
                    assertThat(registry.find("weather", "forecast")).isPresent();
                    DefaultAgent agent = context.getBean(DefaultAgent.class);
                    assertThat(agent.toolMode()).isEqualTo(ToolMode.TAGS);
                    assertThat(agent.toString()).contains("model=llama3.1");
                });
    }

    @Test
    void the_tool_sources_stay_the_applications_and_are_closed_once_with_the_context() {
        runner.withUserConfiguration(ToolBeans.class)
                .withPropertyValues("bellows.base-url=http://127.0.0.1:8931/v1", "bellows.model=m")
                .run(context -> {
                    ToolBeans beans = context.getBean(ToolBeans.class);
                    context.close();
                    assertThat(beans.sourceClosed).isTrue();
                });
    }

    @Test
    void the_agent_runs_the_tool_beans_and_tells_the_listener_beans() {
        ScriptedModel.HEARD.clear();
        runner.withUserConfiguration(ScriptedModel.class)
                .withBean(Provider.class, () -> new ScriptedProvider(MockScript.of(
                        MockTurn.content("<tool>{\"tool_name\": \"word_count\", \"arguments\": {\"text\": \"one two three\"}}</tool>"),
                        MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"3 words\"}}</tool>"))))
                .withPropertyValues("bellows.model=scripted")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Agent agent = context.getBean(Agent.class);
                    AgentResult result = agent.run("How many words in 'one two three'?", new Session()).await();
                    assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "3 words"));
                    assertThat(ScriptedModel.HEARD).extracting(AgentEvent::type)
                            .contains("loop_start", "tool_call_name", "tool_result", "loop_end");
                    ScriptedProvider provider = context.getBean(ScriptedProvider.class);
                    assertThat(provider.requests().getLast().messages().getLast().content()).contains("3");
                });
    }

    @Test
    void tool_mode_react_reads_sections() {
        runner.withUserConfiguration(ScriptedModel.class)
                .withBean(Provider.class,
                        () -> new ScriptedProvider(MockScript.of(MockTurn.content("# thought\nEasy.\n\n# answer\nThree."))))
                .withPropertyValues("bellows.model=scripted", "bellows.tool-mode=react")
                .run(context -> {
                    DefaultAgent agent = context.getBean(DefaultAgent.class);
                    assertThat(agent.toolMode()).isEqualTo(ToolMode.REACT);
                    assertThat(agent.run("Count", new Session()).await())
                            .isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Three."));
                });
    }

    @Test
    void max_iterations_ends_a_run_that_never_calls_a_tool() {
        runner.withUserConfiguration(ScriptedModel.class)
                .withBean(Provider.class, () -> new ScriptedProvider(MockScript.of(
                        MockTurn.content("Thinking aloud."), MockTurn.content("Still thinking."), MockTurn.content("More."))))
                .withPropertyValues("bellows.model=scripted", "bellows.max-iterations=2", "bellows.max-consecutive-errors=5")
                .run(context -> {
                    AgentResult result = context.getBean(Agent.class).run("Count", new Session()).await();
                    assertThat(result.reason()).isEqualTo(LoopEndReason.MAX_ITERATIONS);
                    assertThat(context.getBean(ScriptedProvider.class).requests()).hasSize(2);
                });
    }

    @Test
    void anthropic_takes_its_key_from_ANTHROPIC_API_KEY() {
        runner.withPropertyValues("bellows.provider=anthropic", "ANTHROPIC_API_KEY=" + SECRET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    AnthropicProvider provider = context.getBean(AnthropicProvider.class);
                    assertThat(provider.endpoint().toString()).startsWith(AnthropicProvider.DEFAULT_BASE_URL);
                    assertThat(context.getBean(Agent.class).toString()).contains("model=claude-sonnet-4-5")
                            .doesNotContain(SECRET);
                });
    }

    @Test
    void openai_on_its_own_endpoint_takes_OPENAI_API_KEY_and_the_default_model() {
        runner.withPropertyValues("OPENAI_API_KEY=" + SECRET)
                .run(context -> {
                    OpenAiProvider provider = context.getBean(OpenAiProvider.class);
                    assertThat(provider.baseUrl()).isEqualTo(OpenAiProvider.OPENAI_BASE_URL);
                    assertThat(context.getBean(Agent.class).toString()).contains("model=gpt-4o-mini");
                });
    }

    @Test
    void without_a_key_on_the_providers_endpoint_the_context_fails_saying_what_to_set() {
        runner.run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("OPENAI_API_KEY").hasMessageContaining("bellows.api-key"));
    }

    @Test
    void a_base_url_without_a_model_fails_naming_bellows_model() {
        runner.withPropertyValues("bellows.base-url=http://localhost:11434/v1")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().hasMessageContaining("bellows.model is not set"));
    }

    @Test
    void a_limit_out_of_range_fails_binding_with_the_propertys_name() {
        runner.withPropertyValues("bellows.base-url=http://localhost:11434/v1", "bellows.model=m", "bellows.max-iterations=0")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessage("bellows.max-iterations must be at least 1, got 0");
                });
    }

    @Test
    void the_api_key_appears_in_no_report_of_the_properties() {
        runner.withPropertyValues("bellows.api-key=" + SECRET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BellowsProperties properties = context.getBean(BellowsProperties.class);
                    assertThat(properties.apiKey().reveal()).isEqualTo(SECRET);
                    assertThat(properties.toString()).doesNotContain(SECRET).contains("ApiKey[REDACTED]");
                    // What Actuator's configprops and any JSON dump of the bean see: its getters.
                    assertThat(Jackson.JSON.writeValueAsString(properties))
                            .doesNotContain(SECRET).doesNotContain("apiKey");
                    assertThat(context.getBean(Provider.class).toString()).doesNotContain(SECRET);
                });
    }

    @Test
    void an_agent_bean_of_the_application_replaces_the_auto_configured_one() {
        runner.withPropertyValues("bellows.base-url=http://localhost:11434/v1", "bellows.model=m")
                .withBean("myAgent", Agent.class, () -> DefaultAgent.builder()
                        .provider(new ScriptedProvider(MockScript.of())).model("mine").build())
                .run(context -> {
                    assertThat(context).hasSingleBean(Agent.class).hasBean("myAgent").doesNotHaveBean("bellowsAgent");
                    assertThat(context.getBean(Agent.class).toString()).contains("model=mine");
                });
    }

    @Test
    void a_customizer_bean_changes_the_builder_last() {
        runner.withPropertyValues("bellows.base-url=http://localhost:11434/v1", "bellows.model=m")
                .withBean(AgentCustomizer.class, () -> builder -> builder.model("customized"))
                .run(context -> assertThat(context.getBean(Agent.class).toString()).contains("model=customized"));
    }
}
