package dev.bellows.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import java.io.UncheckedIOException;

/** A tool with a fixed description and schema, for prompt snapshots: only what the model sees matters. */
record SchemaTool(String name, String description, ObjectNode inputSchema) implements Tool {

    private static final ObjectMapper JSON = new ObjectMapper();

    static SchemaTool of(String name, String description, String schema) {
        try {
            return new SchemaTool(name, description, (ObjectNode) JSON.readTree(schema));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) {
        return ToolResult.of("done");
    }
}
