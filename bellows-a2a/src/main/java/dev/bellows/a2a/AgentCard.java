package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** What an agent is and how to reach it, served at {@code /.well-known/agent-card.json}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentCard(String name, String description, List<AgentInterface> supportedInterfaces, AgentProvider provider,
        String version, String documentationUrl, AgentCapabilities capabilities, Map<String, SecurityScheme> securitySchemes,
        List<SecurityRequirement> securityRequirements, List<String> defaultInputModes, List<String> defaultOutputModes,
        List<AgentSkill> skills, List<AgentCardSignature> signatures, String iconUrl) {
}
