package dev.bellows.agent;

import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import tools.jackson.databind.JsonNode;

/**
 * A tool whose call can make the run wait for a person and be carried on with the decision:
 * its {@link #call} throws {@link ToolSuspended}, the run stops ({@code interrupted}) with the
 * suspension kept in the session, and once every waiting call has a decision the loop calls
 * {@link #resume} instead of running the call again, through the same approvals' bookkeeping
 * and tool interceptors. {@link AgentTool} is one: its sub-agent's approvals wait this way.
 *
 * <p>Exactly once: a resume cut short (the process killed while it ran) is resumed again with
 * the same state and decisions, and with the {@linkplain Resumption#notes() notes} the cut-short
 * attempt wrote; a tool that does something that must not happen twice notes it before it goes
 * on. An outcome the resume returned is stored, and never asked for again.
 */
public interface ResumableTool extends Tool {

    /**
     * Carries on a call that suspended, every one of its waiting calls decided.
     *
     * @param context   as for {@link #call}
     * @param arguments the call's arguments, as {@link #call} had them
     * @return the call's result
     * @throws ToolSuspended when it waits again (for other calls: ids used before must not come back)
     * @throws ToolException when the call fails; the model reads the message
     */
    ToolResult<?> resume(ToolContext context, JsonNode arguments, Resumption resumption) throws ToolException;

    /**
     * The run that waits on a call of it is given up ({@link DefaultAgent#cancelWaiting}): the
     * call will never be carried on. Lets go of what its suspension holds outside the run (a
     * remote agent's task, which it cancels) and must not carry the call on; what it throws is
     * ignored. Does nothing by default.
     *
     * @param resumption as for {@link #resume}; its decisions deny the waiting calls, with the reason
     */
    default void giveUp(ToolContext context, JsonNode arguments, Resumption resumption) {
    }
}
