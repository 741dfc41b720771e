package dev.bellows.mcp;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.secret.Secrets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * One tool of an MCP server as the registry holds it: the server's name, description and
 * input schema, and a call that goes to whatever connection the source has now (so the tool
 * survives a server restart). Arguments are checked by the ToolChain against the schema
 * before the call, like any tool's.
 */
final class McpTool implements Tool {

    private final McpToolSource source;
    private final String name;
    private final String description;
    private final JsonNode inputSchema;     // frozen

    McpTool(McpToolSource source, McpSchema.Tool tool) {
        this.source = source;
        this.name = tool.name();
        String text = tool.description() != null && !tool.description().isBlank() ? tool.description()
                : tool.title() != null ? tool.title() : "";
        this.description = Secrets.redact(text); // the catalog goes to the model: no echoed env or header
        ObjectNode schema = tool.inputSchema() == null
                ? ResultMapper.JSON.createObjectNode()
                : ResultMapper.JSON.valueToTree(tool.inputSchema());
        if (!schema.has("type")) {
            schema.put("type", "object");
        }
        this.inputSchema = FrozenJson.freeze(schema);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public JsonNode inputSchema() {
        return inputSchema;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception {
        return source.call(name, arguments, context);
    }

    @Override
    public String toString() {
        return "McpTool[" + source.serverName() + "/" + name + "]";
    }

    /** Same server, name, description and schema: a re-listing that changed nothing. */
    boolean sameAs(McpTool other) {
        return name.equals(other.name) && description.equals(other.description) && inputSchema.equals(other.inputSchema);
    }
}
