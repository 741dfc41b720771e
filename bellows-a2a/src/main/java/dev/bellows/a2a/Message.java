package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** One turn of communication between a client ({@code ROLE_USER}) and an agent ({@code ROLE_AGENT}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Message(String messageId, String contextId, String taskId, Role role, List<Part> parts,
        Map<String, Object> metadata, List<String> extensions, List<String> referenceTaskIds) {
    /** A message of the given role and parts, with a fresh id and no task or context. */
    public static Message of(Role role, List<Part> parts) {
        return new Message(UUID.randomUUID().toString(), null, null, role, List.copyOf(parts), null, null, null);
    }

    /** An agent message with one text part. */
    public static Message agentText(String text) {
        return of(Role.AGENT, List.of(Part.text(text)));
    }

    /** This message placed in a task and its context. */
    public Message inTask(String newTaskId, String newContextId) {
        return new Message(messageId, newContextId, newTaskId, role, parts, metadata, extensions, referenceTaskIds);
    }
}
