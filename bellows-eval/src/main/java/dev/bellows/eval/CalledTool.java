package dev.bellows.eval;

import tools.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A tool call of a run, as its {@code tool_result} or {@code tool_result_error} event reports it.
 *
 * @param serverName the call's server ({@code local} for built-ins); empty when the call could not be decoded
 * @param toolName   the tool's name; empty when the call could not be decoded
 * @param arguments  the call's arguments; empty for a failed call, whose event does not carry them. Read-only
 * @param failed     whether the call ended in an error (unknown tool, bad arguments, the tool threw)
 */
public record CalledTool(String serverName, String toolName, ObjectNode arguments, boolean failed) {

    public CalledTool {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(arguments, "arguments");
    }
}
