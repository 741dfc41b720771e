package dev.bellows.tool;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A well-formed request from the model to run one tool.
 *
 * @param serverName the tool's server ({@code local} for local tools)
 * @param toolName   the tool's name, never empty
 * @param arguments  the arguments as a JSON object ({@code {}} when none were given),
 *                   read-only: the record keeps a frozen copy (none is made of a tree frozen
 *                   already), whose mutators throw {@link UnsupportedOperationException};
 *                   {@link JsonNode#deepCopy()} gives a tree to edit
 */
public record ToolCall(String serverName, String toolName, JsonNode arguments) implements DecodedToolCall {

    /** The server of tools that run in this process. */
    public static final String LOCAL_SERVER = "local";

    public ToolCall {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(arguments, "arguments");
        if (!arguments.isObject()) {
            throw new IllegalArgumentException("arguments must be a JSON object, not " + arguments.getNodeType());
        }
        arguments = FrozenJson.freeze(arguments);
        if (serverName.isEmpty()) {
            throw new IllegalArgumentException("serverName must not be empty");
        }
        if (toolName.isEmpty()) {
            throw new IllegalArgumentException("toolName must not be empty");
        }
    }
}
