package dev.bellows.a2a.server;

import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentSkill;
import dev.bellows.a2a.SecurityRequirement;
import dev.bellows.a2a.SecurityScheme;
import dev.bellows.a2a.StringList;
import dev.bellows.agent.Agent;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.tool.RegisteredTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Agent cards of Bellows agents. */
public final class AgentCards {

    /** The name of the bearer scheme a card declares when the server asks for a token. */
    public static final String BEARER = "bearer";

    private AgentCards() {
    }

    /**
     * The card of a Bellows agent: one skill from its description (tagged with its tools' names),
     * and one per tool (the tool's description); streaming and push as the server sets them; with
     * {@code bearerToken}, the HTTP bearer scheme every request needs. The interfaces are left
     * for {@link A2aServer} to fill in from each request's {@code Host}.
     */
    public static AgentCard of(String name, String description, Agent agent, boolean bearerToken) {
        List<RegisteredTool> tools = agent instanceof DefaultAgent loop && loop.toolRegistry().isPresent()
                ? loop.toolRegistry().get().tools() : List.of();
        List<String> toolNames = tools.stream().map(t -> t.tool().name()).toList();
        List<AgentSkill> skills = new ArrayList<>();
        List<String> tags = new ArrayList<>(List.of("bellows"));
        tags.addAll(toolNames);
        skills.add(new AgentSkill(name, name, description, List.copyOf(tags), null, null, null, null));
        for (RegisteredTool tool : tools) {
            skills.add(new AgentSkill(name + "." + tool.tool().name(), tool.tool().name(),
                    tool.tool().description() == null || tool.tool().description().isBlank() ? tool.tool().name()
                            : tool.tool().description(), List.of("tool", tool.serverName()), null, null, null, null));
        }
        Map<String, SecurityScheme> schemes = bearerToken
                ? Map.of(BEARER, SecurityScheme.bearer("Authorization: Bearer TOKEN, the server's --auth-token")) : null;
        List<SecurityRequirement> requirements = bearerToken
                ? List.of(new SecurityRequirement(Map.of(BEARER, new StringList(List.of())))) : null;
        return new AgentCard(name, description, null, null, "1.0.0", null, null, schemes, requirements,
                List.of("text/plain", "application/json"), List.of("text/plain", "application/json"),
                List.copyOf(skills), null, null);
    }
}
