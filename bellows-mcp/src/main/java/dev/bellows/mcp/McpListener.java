package dev.bellows.mcp;

/**
 * What happens to MCP servers, for a program to report: a server that stopped (crashed, was
 * killed, wrote garbage), one that came back, a tool list that changed, and every change of a
 * server's {@link McpServerStatus} (starting, up, retrying, failed ...). Each is reported once,
 * when it happens. Methods are called on background threads and should return quickly. A
 * first start that fails is also in {@link McpServers#failures()} and the registry's source
 * failures.
 */
public interface McpListener {

    /** A server stopped or could not be restarted; its tools answer with errors until it is back. */
    default void serverProblem(String server, String reason) {
    }

    /** A server that had stopped was started again. */
    default void serverRestarted(String server) {
    }

    /**
     * A server's tools changed ({@code notifications/tools/list_changed}, after a restart, or
     * when a server whose first start failed came up).
     */
    default void toolsChanged(String server) {
    }

    /** A server's status changed: starting, up, retrying in N s, stopped, failed, closed. */
    default void statusChanged(String server, McpServerStatus status) {
    }

    /** Reports nothing. */
    McpListener NONE = new McpListener() {
    };
}
