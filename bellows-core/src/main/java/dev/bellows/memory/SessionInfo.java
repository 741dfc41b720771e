package dev.bellows.memory;

import dev.bellows.plan.Plan;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link SessionStore} knows about a session, read without opening it.
 *
 * @param name     its name
 * @param created  when it was created
 * @param updated  when a turn, the plan or the metadata were last written
 * @param requests how many exchanges it holds: the requests a user made, each with the agent's
 *                 whole answer. The store records them as they are written, whatever the turns
 *                 hold: each committed {@link StoredSession#beginExchange() exchange} (an agent
 *                 run of a {@code dev.bellows.agent.Session}) is one, and so is each turn
 *                 appended outside an exchange
 * @param turns    how many turns it holds (one per iteration of the agent loop)
 * @param messages how many messages those turns hold
 * @param plan     its stored plan
 * @param metadata its metadata (e.g. {@link StoredSession#MODEL}, {@link StoredSession#TOOL_MODE})
 */
public record SessionInfo(String name, Instant created, Instant updated, int requests, int turns, int messages,
                          Plan plan, Map<String, String> metadata) {

    public SessionInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(updated, "updated");
        Objects.requireNonNull(plan, "plan");
        metadata = Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
        if (requests < 0 || turns < 0 || messages < 0 || requests > turns) {
            throw new IllegalArgumentException("requests, turns and messages cannot be negative, nor requests more"
                    + " than turns: " + requests + ", " + turns + ", " + messages);
        }
    }
}
