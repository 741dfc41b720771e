package dev.bellows.tool;

import tools.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A well-formed request from the model to run one tool.
 *
 * @param serverName the tool's server ({@code local} for local tools)
 * @param toolName   the tool's name, never empty
 * @param arguments  the arguments as a JSON object ({@code {}} when none were given);
 *                   treat it as read-only
 */
public record ToolCall(String serverName, String toolName, ObjectNode arguments) implements DecodedToolCall {

    /** The server of tools that run in this process. */
    public static final String LOCAL_SERVER = "local";

    public ToolCall {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(arguments, "arguments");
        if (serverName.isEmpty()) {
            throw new IllegalArgumentException("serverName must not be empty");
        }
        if (toolName.isEmpty()) {
            throw new IllegalArgumentException("toolName must not be empty");
        }
    }
}
