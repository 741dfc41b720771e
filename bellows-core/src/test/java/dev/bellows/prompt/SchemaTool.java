package dev.bellows.prompt;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;

/** A tool with a fixed description and schema, for prompt snapshots: only what the model sees matters. */
public record SchemaTool(String name, String description, ObjectNode inputSchema) implements Tool {

    private static final ObjectMapper JSON = Jackson.JSON;

    public static SchemaTool of(String name, String description, String schema) {
        return new SchemaTool(name, description, (ObjectNode) JSON.readTree(schema));
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) {
        return ToolResult.of("done");
    }
}
