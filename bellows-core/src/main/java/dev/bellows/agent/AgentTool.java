package dev.bellows.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.regex.Pattern;

/**
 * An agent offered to another agent as a tool: the model calls it with one argument,
 * {@code task} (a string), the agent works on that task with its own instructions, tools and
 * limits, in a fresh session of its own (it never sees the caller's conversation), and its final
 * answer is the call's result.
 *
 * <pre>{@code
 * DefaultAgent researcher = DefaultAgent.builder().provider(provider).model("m")
 *         .instructions("You find facts.").build();
 * DefaultAgent lead = DefaultAgent.builder().provider(provider).model("m")
 *         .toolRegistry(new ToolRegistry().register(AgentTool.of("researcher", "Finds facts", researcher)))
 *         .build();
 * }</pre>
 *
 * <p>While it runs, each of its events reaches the calling run's listeners (and readers) as it
 * happens, as a {@link LoopEvent.SubAgentEvent} that names the agent and the id of the call
 * that runs it; a sub-agent's own sub-agents nest the same way, to any depth. Cancelling the
 * calling run cancels the sub-agent's run (its model request and tools). A sub-agent that ends
 * other than successfully (its iteration cap, its circuit breaker, an error, a call waiting for
 * approval) is a failed call the calling model reads.
 *
 * <p>Thread-safe: calls of it may run at the same time (each has its own session).
 */
public final class AgentTool implements Tool {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final String name;
    private final String description;
    private final Agent agent;
    private final ObjectNode schema;

    private AgentTool(String name, String description, Agent agent) {
        this.name = name;
        this.description = description;
        this.agent = agent;
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties").putObject("task").put("type", "string")
                .put("description", "What " + name + " should do: everything it needs to know, since it sees"
                        + " nothing of this conversation");
        schema.putArray("required").add("task");
        schema.put("additionalProperties", false);
        this.schema = schema;
    }

    /**
     * {@code agent} as a tool named {@code name}.
     *
     * @param name        the tool's name, which also names the agent in its events: letters,
     *                    digits, {@code _} and {@code -}, at most 64
     * @param description what the agent does, for the calling model
     * @throws IllegalArgumentException for a name that is not one
     */
    public static AgentTool of(String name, String description, Agent agent) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(agent, "agent");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an agent tool's name is letters, digits, _ and - (at most 64): \""
                    + name + "\" is not");
        }
        return new AgentTool(name, description, agent);
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
    public ObjectNode inputSchema() {
        return schema;
    }

    /** Parallel calls each run in a session of their own. */
    @Override
    public boolean parallelSafe() {
        return true;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws ToolException {
        JsonNode task = arguments == null ? null : arguments.get("task");
        if (task == null || !task.isTextual() || task.asText().isBlank()) {
            throw new ToolException("\"task\" is required: a string saying what " + name + " should do");
        }
        CallScope caller = CallScope.current();
        AgentRun run = agent.run(task.asText(), new Session());
        try {
            for (AgentEvent event : run) {
                if (caller != null) {
                    caller.emit(new LoopEvent.SubAgentEvent(name, caller.callId, event));
                }
                if (context.isCancelled()) {
                    run.cancel();
                }
            }
        } catch (CancellationException e) {
            // this thread was interrupted: the calling run was cancelled, and so is this one
            run.cancel();
            throw new ToolException(name + " was cancelled");
        }
        AgentResult result = run.await();
        if (result.reason().successful()) {
            return ToolResult.of(result.result());
        }
        throw new ToolException(name + " ended " + result.reason().wireName()
                + (result.result().isEmpty() ? "" : ": " + result.result()));
    }

    @Override
    public String toString() {
        return "AgentTool[" + name + "]";
    }
}
