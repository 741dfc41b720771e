package dev.bellows.tool;

import java.util.Objects;

/**
 * A tool as the registry holds it: the server the model calls it on, and the tool.
 *
 * @param serverName the server ({@code local} for local tools)
 * @param tool       the tool
 */
public record RegisteredTool(String serverName, Tool tool) {

    public RegisteredTool {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(tool, "tool");
    }

    /** The tool's name, as the model calls it. */
    public String toolName() {
        return tool.name();
    }
}
