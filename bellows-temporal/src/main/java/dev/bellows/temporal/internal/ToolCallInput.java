package dev.bellows.temporal.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * One tool call as it travels to the tool-call activity.
 *
 * @param callId the call's id in the run, deterministic ({@code workflowId/tool-N}): a tool that
 *               can use it makes a repeated call idempotent
 * @param run    what the run's interceptors see of the run in the workflow, for the worker's
 *               (null in a history recorded before it was sent)
 */
public record ToolCallInput(String serverName, String toolName, ObjectNode arguments, String callId, RunInfo run) {

    /** The run as the workflow's loop knows it when it schedules a call. */
    public record RunInfo(String agentName, String session, String task, int iteration) {
    }
}
