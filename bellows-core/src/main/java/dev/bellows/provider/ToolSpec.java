package dev.bellows.provider;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A tool offered to the model through the API's own tool calling ({@code tools} in the
 * request): OpenAI-compatible functions, Anthropic tools.
 *
 * @param name        the function name the model calls it by ({@code [A-Za-z0-9_-]}, at most 64)
 * @param description what it does, for the model
 * @param parameters  the JSON Schema of its arguments (an object schema), frozen (read-only; a
 *                    copy unless frozen already, as a tool's own schema is)
 */
public record ToolSpec(String name, String description, JsonNode parameters) {

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        parameters = FrozenJson.freeze(Objects.requireNonNull(parameters, "parameters"));
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("tool name '" + name + "' cannot be offered natively: use 1 to 64"
                    + " letters, digits, '_' or '-'");
        }
    }
}
