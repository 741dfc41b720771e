package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/** A task's state, the agent's message about it (the question while {@code INPUT_REQUIRED}), and when it was set (ISO 8601, UTC, milliseconds). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TaskStatus(TaskState state, Message message, String timestamp) {
    /** The state with the current time and no message. */
    public static TaskStatus of(TaskState state) {
        return of(state, null);
    }

    /** The state and message with the current time. */
    public static TaskStatus of(TaskState state, Message message) {
        return new TaskStatus(state, message, Timestamps.now());
    }
}
