package dev.bellows.spring;

import dev.bellows.agent.AgentBuilder;

/**
 * Changes the builder of the auto-configured {@code Agent} after the {@code bellows.*}
 * properties are applied and before it is built: a memory, stream options, a format,
 * anything the properties do not cover. Every customizer bean is applied, in bean order.
 *
 * <pre>{@code
 * @Bean
 * AgentCustomizer shortMemory() {
 *     return builder -> builder.memory(ConversationMemory.builder().maxTokens(8_000).build());
 * }
 * }</pre>
 */
@FunctionalInterface
public interface AgentCustomizer {

    void customize(AgentBuilder<?, ?> builder);
}
