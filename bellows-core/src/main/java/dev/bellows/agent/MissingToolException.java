package dev.bellows.agent;

import java.util.Objects;

/**
 * A resume approved a waiting call whose tool the resuming agent does not have (a run carried
 * on without the MCP server it began with): refused before anything is used up, since the call
 * would only fail and the approval be spent. A denial never needs the tool.
 */
public final class MissingToolException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String callId;
    private final String serverName;
    private final String toolName;

    /**
     * @param callId     the approved call's id
     * @param serverName the server its tool is on
     * @param toolName   its tool
     */
    public MissingToolException(String callId, String serverName, String toolName) {
        super("call " + callId + " needs tool " + serverName + "/" + toolName + ", which this agent does not have"
                + " (no server \"" + serverName + "\" or no such tool on it): give the agent that server's tools to"
                + " approve it, or deny the call");
        this.callId = Objects.requireNonNull(callId, "callId");
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        this.toolName = Objects.requireNonNull(toolName, "toolName");
    }

    /** The approved call's id. */
    public String callId() {
        return callId;
    }

    /** The server the call names. */
    public String serverName() {
        return serverName;
    }

    /** The tool the call names. */
    public String toolName() {
        return toolName;
    }
}
