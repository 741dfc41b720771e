package dev.bellows.mcp;

/**
 * What happens to MCP servers after they started, for a program to report: a server that
 * stopped (crashed, was killed, wrote garbage), one that came back, a tool list that changed.
 * Each is reported once, when it happens. Methods are called on background threads and
 * should return quickly. Startup failures are not reported here: {@link McpServers#failures()}
 * and the registry's source failures list them.
 */
public interface McpListener {

    /** A server stopped or could not be restarted; its tools answer with errors until it is back. */
    default void serverProblem(String server, String reason) {
    }

    /** A server that had stopped was started again. */
    default void serverRestarted(String server) {
    }

    /** A server's tools changed ({@code notifications/tools/list_changed}, or after a restart). */
    default void toolsChanged(String server) {
    }

    /** Reports nothing. */
    McpListener NONE = new McpListener() {
    };
}
