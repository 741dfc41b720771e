package dev.bellows.agent;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.ArgumentProblem;
import dev.bellows.tool.internal.ArgumentValidator;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.LoopEndReason;
import java.util.List;

/**
 * {@code task_completion} for a run whose answer is structured: {@code result} must match the
 * answer's schema. It is checked and coerced as tool arguments are (and, for a record, bound to
 * it), so a mismatch goes back to the model as an error to correct; the loop ends with the
 * result's JSON.
 */
final class TypedCompletion implements Tool {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private final JsonNode schema;      // frozen
    private final Class<?> type;

    /**
     * @param resultSchema the JSON Schema of {@code result}
     * @param type         the record to bind the result to, or null to check it against the schema only
     */
    TypedCompletion(JsonNode resultSchema, Class<?> type) {
        this.type = type;
        ObjectNode schema = MAPPER.createObjectNode().put("type", "object");
        schema.putObject("properties").set("result", resultSchema);
        schema.putArray("required").add("result");
        schema.put("additionalProperties", false);
        this.schema = FrozenJson.freeze(schema);
    }

    @Override
    public String name() {
        return BuiltinTools.TASK_COMPLETION;
    }

    @Override
    public String description() {
        return "Finish the task and give the user the final answer. Call it once the task is done, with the complete"
                + " answer in `result` as structured data matching its schema; it ends your turn, so do not call it"
                + " while work remains. An answer that does not match comes back as an error to correct.";
    }

    @Override
    public JsonNode inputSchema() {
        return schema;
    }

    @Override
    public boolean validatesArguments() {
        return true;
    }

    @Override
    public boolean loopBreaking() {
        return true;
    }

    @Override
    public boolean parallelSafe() {
        return true;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception {
        JsonNode checked = ArgumentValidator.validate(name(), schema,
                arguments == null ? MAPPER.createObjectNode() : arguments);
        JsonNode result = checked.get("result");
        if (type != null) {
            try {
                result = MAPPER.valueToTree(Jackson.ARGUMENTS.forType(type).readValue(result));   // as the record has it
            } catch (JacksonException | IllegalArgumentException e) {
                throw new InvalidArgumentsException(name(), List.of(new ArgumentProblem("result",
                        "does not fit the answer's type: " + e.getMessage().lines().findFirst().orElse(""))),
                        schema.toString());
            }
        }
        return ToolResult.endingRun(LoopEndReason.TASK_COMPLETION, MAPPER.writeValueAsString(result));
    }
}
