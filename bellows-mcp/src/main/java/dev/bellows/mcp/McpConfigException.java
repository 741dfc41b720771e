package dev.bellows.mcp;

/**
 * An {@code mcpServers} configuration that cannot be used. The message names the server and
 * the key ({@code mcpServers.everything: "args" must be an array of strings, not a string})
 * and never repeats a value, since environment variables and headers often hold secrets.
 */
public final class McpConfigException extends IllegalArgumentException {

    public McpConfigException(String message) {
        super(message);
    }
}
