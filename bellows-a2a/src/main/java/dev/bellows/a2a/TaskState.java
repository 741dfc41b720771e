package dev.bellows.a2a;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The states of a task, written in JSON as protobuf names them ({@code TASK_STATE_WORKING}, ...). */
public enum TaskState {
    @JsonProperty("TASK_STATE_UNSPECIFIED") UNSPECIFIED,
    @JsonProperty("TASK_STATE_SUBMITTED") SUBMITTED,
    @JsonProperty("TASK_STATE_WORKING") WORKING,
    @JsonProperty("TASK_STATE_COMPLETED") COMPLETED,
    @JsonProperty("TASK_STATE_FAILED") FAILED,
    @JsonProperty("TASK_STATE_CANCELED") CANCELED,
    @JsonProperty("TASK_STATE_INPUT_REQUIRED") INPUT_REQUIRED,
    @JsonProperty("TASK_STATE_REJECTED") REJECTED,
    @JsonProperty("TASK_STATE_AUTH_REQUIRED") AUTH_REQUIRED;

    /** The name on the wire, {@code TASK_STATE_...}. */
    public String wireName() {
        return "TASK_STATE_" + name();
    }

    /** The state a wire name names, or null when it names none. */
    public static TaskState fromWire(String wire) {
        for (TaskState s : values()) {
            if (s.wireName().equals(wire)) {
                return s;
            }
        }
        return null;
    }

    /** Completed, failed, canceled or rejected: the task takes no further message. */
    public boolean terminal() {
        return this == COMPLETED || this == FAILED || this == CANCELED || this == REJECTED;
    }

    /** Input or auth required: the task waits for the client. */
    public boolean interrupted() {
        return this == INPUT_REQUIRED || this == AUTH_REQUIRED;
    }
}
