package dev.bellows.agent;

import dev.bellows.memory.internal.SessionJson;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import dev.bellows.tool.ToolException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A waiting sub-agent's session as its caller keeps it ({@link AgentTool}, in the
 * {@link ToolSuspended} state of the call that runs it): {@code turns} (the conversation before
 * the iteration that waits, each turn an array of messages as a waiting run's {@code head}
 * holds them), {@code plan} (its plan's JSON text, when it has one), {@code waiting} (its
 * waiting run, in the form a stored session keeps it: docs/agents.md). What resuming it does
 * is kept in the caller's log as the call's notes, each a log entry of the sub-agent's own.
 */
final class SubAgentState {

    private SubAgentState() {
    }

    static ObjectNode write(Session session) {
        ObjectNode state = JsonNodeFactory.instance.objectNode();
        ArrayNode turns = state.putArray("turns");
        for (List<Message> turn : session.memory().turns()) {
            turns.add(SuspensionJson.messages(turn));
        }
        if (!session.plan().steps().isEmpty()) {
            state.put("plan", SessionJson.planToJson(session.plan()));
        }
        state.set("waiting", SuspensionJson.toJson(session.suspension()));
        return state;
    }

    /**
     * The sub-agent's session waiting again as it stopped, with what earlier attempts of this
     * resume did, noting what it does next in the caller's log.
     *
     * @param session a fresh session to fill (one sharing the caller's state)
     * @throws ToolException when the state is damaged, saying how
     */
    static Session read(Resumption resumption, String name, Session session) throws ToolException {
        JsonNode state = resumption.state();
        try {
            JsonNode turns = state.get("turns");
            if (turns == null || !turns.isArray()) {
                throw new IllegalArgumentException("no \"turns\"");
            }
            for (JsonNode turn : turns) {
                session.memory().addTurn(SuspensionJson.messages(turn));
            }
            JsonNode plan = state.get("plan");
            if (plan != null) {
                session.plan(SessionJson.planFromJson(plan.asString()));
            }
            Suspension waiting = SuspensionJson.readSuspension(state.get("waiting"));
            List<ResumeLog.Entry> done = new ArrayList<>();
            for (JsonNode note : resumption.notes()) {
                done.add(SuspensionJson.readLogEntry(note));
            }
            session.waitFrom(waiting, done, entries -> entries.forEach(
                    entry -> resumption.note(SuspensionJson.toJson(entry))));
            return session;
        } catch (RuntimeException e) {
            throw new ToolException("the waiting state of " + name + " is damaged: " + e.getMessage(), e);
        }
    }
}
