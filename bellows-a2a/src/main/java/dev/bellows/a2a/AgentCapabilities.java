package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** Optional features an agent supports. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentCapabilities(Boolean streaming, Boolean pushNotifications, List<AgentExtension> extensions,
        Boolean extendedAgentCard) {
}
