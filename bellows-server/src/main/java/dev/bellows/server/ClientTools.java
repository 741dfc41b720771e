package dev.bellows.server;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The tools of a {@code RunAgentInput} ({@code tools}): the client's own, offered to the model
 * for that run only, as the run's external tools ({@code DefaultAgent.run(task, session,
 * external)}). The model may call one; the call is not run here but waits, the run ends after
 * its {@code TOOL_CALL_END}, and the client sends the result as a {@code tool} message in its
 * next run.
 */
final class ClientTools {

    private ClientTools() {
    }

    static List<Tool> of(List<AguiInput.ClientTool> tools) {
        List<Tool> external = new ArrayList<>(tools.size());
        for (AguiInput.ClientTool tool : tools) {
            external.add(new ClientTool(tool.name(), tool.description(), schema(tool.parameters())));
        }
        return external;
    }

    /** The client's schema as given (a frozen copy: the tool's own), or an object of any properties when it gave none. */
    private static JsonNode schema(JsonNode parameters) {
        if (parameters instanceof ObjectNode object) {
            if (object.has("type")) {
                return FrozenJson.freeze(object);
            }
            ObjectNode copy = object.deepCopy();
            copy.put("type", "object");
            return FrozenJson.freeze(copy);
        }
        ObjectNode any = JsonNodeFactory.instance.objectNode().put("type", "object");
        any.putObject("properties");
        return FrozenJson.freeze(any);
    }

    /** A tool the client carries out: the loop never calls it (its calls wait for the client's result). */
    record ClientTool(String name, String description, JsonNode inputSchema) implements Tool {
        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) {
            throw new IllegalStateException("the client's tool " + name + " is carried out by the client, not here");
        }
    }
}
