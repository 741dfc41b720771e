package dev.bellows.temporal.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * One tool call as it travels to the tool-call activity.
 *
 * @param callId the call's id in the run, deterministic ({@code workflowId/tool-N}): a tool that
 *               can use it makes a repeated call idempotent
 */
public record ToolCallInput(String serverName, String toolName, ObjectNode arguments, String callId) {
}
