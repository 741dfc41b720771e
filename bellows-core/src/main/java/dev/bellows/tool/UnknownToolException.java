package dev.bellows.tool;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The model called a tool that does not exist: an unknown server, or a server without that
 * tool. The message is written for the model: it names what was asked, suggests the closest
 * tool when one is close, and lists the tools that exist, grouped by server.
 */
public class UnknownToolException extends ToolException {

    private final String serverName;
    private final String toolName;
    private final Map<String, List<String>> available;

    UnknownToolException(String serverName, String toolName, Map<String, List<String>> available, String message) {
        super(message);
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        this.toolName = Objects.requireNonNull(toolName, "toolName");
        Map<String, List<String>> copy = new LinkedHashMap<>();
        available.forEach((server, names) -> copy.put(server, List.copyOf(names)));
        this.available = Collections.unmodifiableMap(copy);
    }

    /** The server the call named. */
    public String serverName() {
        return serverName;
    }

    /** The tool name the call named. */
    public String toolName() {
        return toolName;
    }

    /**
     * Every tool that could have been called, by server in registration order (servers that
     * are unavailable are left out); unlike the message, never shortened.
     */
    public Map<String, List<String>> available() {
        return available;
    }
}
