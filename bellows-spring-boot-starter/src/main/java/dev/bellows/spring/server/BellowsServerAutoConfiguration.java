package dev.bellows.spring.server;

import dev.bellows.agent.Agent;
import dev.bellows.memory.SessionStore;
import dev.bellows.server.AgentServer;
import dev.bellows.spring.BellowsAutoConfiguration;
import dev.bellows.spring.BellowsSessionsAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The agent over HTTP in a Spring MVC application, turned on by one property,
 * {@code bellows.server.enabled=true}: the agent bean served at {@code bellows.server.path}
 * (default {@code /bellows}) with AG-UI, OpenAI's chat completions and the chat page, its
 * threads in the {@link SessionStore} bean when there is one (else in memory). Needs
 * bellows-server on the class path.
 */
@AutoConfiguration(after = {BellowsAutoConfiguration.class, BellowsSessionsAutoConfiguration.class})
@ConditionalOnClass({AgentServer.class, jakarta.servlet.http.HttpServlet.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "bellows.server", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(BellowsServerProperties.class)
public class BellowsServerAutoConfiguration {

    /** The agent server; backs off for one of the application's. */
    @Bean
    @ConditionalOnMissingBean
    public AgentServer bellowsAgentServer(Agent agent, ObjectProvider<SessionStore> store, BellowsServerProperties properties) {
        AgentServer.Builder builder = AgentServer.builder(agent)
                .maxRuns(properties.getMaxRuns())
                .maxRequestBytes(properties.getMaxRequestBytes())
                .authToken(properties.getAuthToken() == null || properties.getAuthToken().isBlank() ? null
                        : properties.getAuthToken())
                .allowHosts(properties.getAllowedHosts())
                .allowOrigins(properties.getAllowedOrigins());
        store.ifAvailable(builder::sessionStore);
        return builder.build();
    }

    /** The servlet at {@code bellows.server.path}. */
    @Bean
    public ServletRegistrationBean<AgentServerServlet> bellowsAgentServerServlet(AgentServer server,
                                                                                 BellowsServerProperties properties) {
        String path = properties.getPath().endsWith("/") ? properties.getPath().substring(0, properties.getPath().length() - 1)
                : properties.getPath();
        ServletRegistrationBean<AgentServerServlet> registration =
                new ServletRegistrationBean<>(new AgentServerServlet(server), path + "/*", path);
        registration.setAsyncSupported(true);
        registration.setName("bellowsAgentServer");
        return registration;
    }
}
