package dev.bellows.tool;

import java.util.List;

/**
 * Tools that arrive from somewhere else, all under one server name: an MCP server, a plugin.
 * A {@link ToolRegistry} asks each source for its tools; closing the registry closes them.
 */
public interface ToolSource extends AutoCloseable {

    /** The server name the model uses in its calls ({@code server_name}); never {@code local}. */
    String serverName();

    /**
     * The tools this source offers now.
     *
     * @throws ToolException when the source cannot list them (a server that failed to start)
     */
    List<Tool> tools() throws ToolException;

    /** Releases what the source holds (processes, connections). */
    @Override
    default void close() {
    }
}
