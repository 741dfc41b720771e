package dev.bellows.a2a.client;

import java.util.Objects;

/**
 * A remote A2A task that waits for the person ({@code input-required}): which agent, which task
 * and context, and the agent's question. Enough to answer it later, in another process too: it
 * holds no secret.
 *
 * @param agent     the remote agent's name (the tool's)
 * @param taskId    the remote task's id
 * @param contextId the remote task's context
 * @param question  what the agent asks (the text of its status message; empty when it said nothing)
 */
public record RemoteWait(String agent, String taskId, String contextId, String question) {

    public RemoteWait {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(taskId, "taskId");
        contextId = contextId == null ? "" : contextId;
        question = question == null ? "" : question;
    }
}
