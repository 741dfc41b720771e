package dev.bellows.tool;

import tools.jackson.databind.JsonNode;

/**
 * Something the model can ask the agent to do: a name, a description and the JSON Schema of
 * its arguments, which the model sees in its prompt, and a {@link #call} that does it.
 *
 * <p>Most tools are written as a {@link TypedTool}: a record for the arguments and a lambda,
 * with the schema generated from the record. MCP servers provide tools through a
 * {@link ToolSource}. Either way they land in one {@link ToolRegistry}.
 */
public interface Tool {

    /** The name the model calls it by; unique within its server. */
    String name();

    /** What it does and when to use it, for the model. */
    String description();

    /**
     * The JSON Schema ({@code "type": "object"}) of the arguments. Bellows never changes it; the
     * tools Bellows makes return a frozen tree (its mutators throw
     * {@link UnsupportedOperationException}; {@link JsonNode#deepCopy()} gives one to edit).
     */
    JsonNode inputSchema();

    /**
     * Runs the tool. The arguments have not been checked against {@link #inputSchema()} unless
     * the tool does so itself ({@link TypedTool} does, before its handler runs).
     *
     * @throws ToolException for a failure the model should read (bad arguments included)
     * @throws Exception     for any other failure; it reaches the model as an error too
     */
    ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception;

    /**
     * True when {@link #call} checks the arguments against {@link #inputSchema()} itself
     * ({@link TypedTool} does); otherwise whoever runs the tool (the ToolChain) checks them
     * first, so that a mismatch reaches the model as an error naming the field.
     */
    default boolean validatesArguments() {
        return false;
    }

    /**
     * True when calling it ends the agent loop ({@code task_completion} and friends): the prompt
     * says so, and a result of it without an {@linkplain ToolResult#effect() effect} ends the run
     * with its text as the answer (see {@link ToolEffect.EndRun}).
     */
    default boolean loopBreaking() {
        return false;
    }

    /** True when it may run at the same time as other calls in the same batch. */
    default boolean parallelSafe() {
        return false;
    }
}
