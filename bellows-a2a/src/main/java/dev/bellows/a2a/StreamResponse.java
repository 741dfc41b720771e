package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** One event of a stream or push notification: exactly one of {@code task}, {@code message}, {@code statusUpdate}, {@code artifactUpdate}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record StreamResponse(Task task, Message message, TaskStatusUpdateEvent statusUpdate,
        TaskArtifactUpdateEvent artifactUpdate) {
    /** A task snapshot. */
    public static StreamResponse of(Task task) {
        return new StreamResponse(task, null, null, null);
    }

    /** A direct message. */
    public static StreamResponse of(Message message) {
        return new StreamResponse(null, message, null, null);
    }

    /** A status update. */
    public static StreamResponse of(TaskStatusUpdateEvent update) {
        return new StreamResponse(null, null, update, null);
    }

    /** An artifact update. */
    public static StreamResponse of(TaskArtifactUpdateEvent update) {
        return new StreamResponse(null, null, null, update);
    }
}
