package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** A unit of work (A2A {@code Task}): its id, the context (conversation) it belongs to, its status, its outputs and the messages exchanged. {@code artifacts} and {@code history} are null when left out of a response. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Task(String id, String contextId, TaskStatus status, List<Artifact> artifacts, List<Message> history,
        Map<String, Object> metadata) {
    /** This task with another status. */
    public Task withStatus(TaskStatus newStatus) {
        return new Task(id, contextId, newStatus, artifacts, history, metadata);
    }

    /** This task with other artifacts (null leaves them out). */
    public Task withArtifacts(List<Artifact> newArtifacts) {
        return new Task(id, contextId, status, newArtifacts, history, metadata);
    }

    /** This task with another history (null leaves it out). */
    public Task withHistory(List<Message> newHistory) {
        return new Task(id, contextId, status, artifacts, newHistory, metadata);
    }
}
