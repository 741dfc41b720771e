package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** Something an agent can do. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentSkill(String id, String name, String description, List<String> tags, List<String> examples,
        List<String> inputModes, List<String> outputModes, List<SecurityRequirement> securityRequirements) {
}
