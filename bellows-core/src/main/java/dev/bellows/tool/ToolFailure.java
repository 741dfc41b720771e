package dev.bellows.tool;

import java.util.Objects;

/**
 * One tool a {@link ToolRegistry} could not take although its server could: its input schema
 * is not a schema arguments can be checked against (see {@link InvalidSchemaException}). The
 * tool is left out of the catalog the model sees; a call to it answers with this reason. The
 * server's other tools work.
 *
 * @param serverName the server that listed it
 * @param toolName   the tool
 * @param reason     what is wrong with its schema, in one line
 */
public record ToolFailure(String serverName, String toolName, String reason) {

    public ToolFailure {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String toString() {
        return "tool \"" + toolName + "\" on server \"" + serverName + "\" is unusable: " + reason;
    }
}
