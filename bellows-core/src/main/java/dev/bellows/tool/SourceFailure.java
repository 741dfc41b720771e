package dev.bellows.tool;

import java.util.Objects;

/**
 * A {@link ToolSource} that could not list its tools (an MCP server that failed to start or
 * died), as the {@link ToolRegistry} reports it: its tools are left out of the catalog and
 * calls to them answer with this reason.
 *
 * @param serverName the source's server name
 * @param reason     why, in one line, for a user or a model to read
 * @param cause      the exception the source threw, or {@code null} when the registry itself
 *                   rejected what the source listed (a tool listed twice, say)
 */
public record SourceFailure(String serverName, String reason, Exception cause) {

    public SourceFailure {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String toString() {
        return "server \"" + serverName + "\" is unavailable: " + reason;
    }
}
