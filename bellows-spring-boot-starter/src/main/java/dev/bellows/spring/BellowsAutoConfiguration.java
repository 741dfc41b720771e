package dev.bellows.spring;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Bellows {@link Agent} from the {@code bellows.*} properties ({@link BellowsProperties}),
 * with every {@link Tool} and {@link ToolSource} bean of the application as its tools.
 *
 * <p>Each bean backs off when the application defines its own: a {@link Provider} bean
 * replaces the one built from the properties, a {@link ToolRegistry} bean the one collected
 * from the tool beans, an {@link Agent} bean the agent. {@link AgentListener} beans hear
 * every event of every run; {@link AgentCustomizer} beans change the builder last.
 *
 * <p>The agent bean is shared: give each conversation (a user, a request) its own
 * {@code Session}, as {@code agent.run(task, new Session())}; {@code agent.run(task)} alone
 * gives each run a fresh session, unless an {@link AgentCustomizer} set a builder memory (then
 * the agent's one conversation, which takes one run at a time).
 */
@AutoConfiguration
@EnableConfigurationProperties(BellowsProperties.class)
public class BellowsAutoConfiguration {

    /** The model API the properties name (OpenAI-compatible or Anthropic). */
    @Bean
    @ConditionalOnMissingBean
    public Provider bellowsProvider(BellowsProperties properties, Environment environment) {
        return ProviderFactory.provider(properties, environment);
    }

    /**
     * Every {@link Tool} bean on server {@code local} and every {@link ToolSource} bean under
     * its own server name, in bean order. The tool and source beans stay the application's:
     * Spring closes them, so the registry is not closed as a bean.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public ToolRegistry bellowsToolRegistry(ObjectProvider<Tool> tools, ObjectProvider<ToolSource> sources) {
        ToolRegistry registry = new ToolRegistry();
        tools.orderedStream().forEach(registry::register);
        sources.orderedStream().forEach(registry::addSource);
        return registry;
    }

    /** The agent: the properties' model, tool mode and limits over the provider and registry beans. */
    @Bean
    @ConditionalOnMissingBean
    public Agent bellowsAgent(BellowsProperties properties, Provider provider, ToolRegistry tools,
                              ObjectProvider<AgentListener> listeners, ObjectProvider<AgentCustomizer> customizers) {
        DefaultAgent.Builder builder = DefaultAgent.builder()
                .provider(provider)
                .model(ProviderFactory.model(properties))
                .instructions(properties.getInstructions())
                .toolMode(properties.getToolMode())
                .toolRegistry(tools)
                .builtinTools(properties.isBuiltinTools())
                .maxIterations(properties.getMaxIterations())
                .maxConsecutiveErrors(properties.getMaxConsecutiveErrors())
                .retryPolicy(RetryPolicy.defaults().withMaxRetries(properties.getMaxRetries()));
        listeners.orderedStream().forEach(builder::listener);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }
}
