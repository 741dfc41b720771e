package dev.bellows.eval;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A tool call of a run, as its {@code tool_result} or {@code tool_result_error} event reports it.
 *
 * @param serverName the call's server ({@code local} for built-ins); empty when the call could not be decoded
 * @param toolName   the tool's name; empty when the call could not be decoded
 * @param arguments  the call's arguments (a JSON object); empty for a failed call, whose event does not carry
 *                   them. Frozen (read-only; a copy unless frozen already)
 * @param failed     whether the call ended in an error (unknown tool, bad arguments, the tool threw)
 */
public record CalledTool(String serverName, String toolName, JsonNode arguments, boolean failed) {

    public CalledTool {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(toolName, "toolName");
        arguments = FrozenJson.freeze(Objects.requireNonNull(arguments, "arguments"));
    }
}
