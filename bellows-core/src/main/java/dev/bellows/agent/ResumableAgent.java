package dev.bellows.agent;

import tools.jackson.databind.JsonNode;

/**
 * An agent of a kind of its own (not a {@link DefaultAgent} or {@link ReActAgent}, whose waits
 * {@link AgentTool} knows already) whose run can stop waiting for decisions and be carried on
 * later from a state kept as JSON, in this process or another: a remote agent whose task asks
 * the person a question is one.
 *
 * <p>Offered to a model with {@link AgentTool#of}, such a stop makes the whole calling run wait,
 * as a local sub-agent's approval does: a run of it that ends {@code interrupted} with waiting
 * calls ({@link AgentResult#waiting()}, with ids of its own) suspends the call
 * ({@link ToolSuspended}) with {@link #waitingState} and those calls; once each of them has a
 * decision, {@link #resume} carries the run on, and its answer is the call's result. A run that
 * ends {@code interrupted} with no waiting call is a failed call. When the calling run's wait is
 * given up instead ({@link DefaultAgent#cancelWaiting}), {@link #resume} is called with denials
 * of every waiting call and awaited, so that the agent lets go of what it holds (a remote agent
 * cancels its task); its answer then goes nowhere.
 *
 * <p>An implementation says in its own Javadoc which of its runs end so (a remote agent's
 * {@code interrupting()} ones, say); it must be safe to call from any thread.
 */
public interface ResumableAgent extends Agent {

    /**
     * What to keep of {@code stopped}, a run in {@code session} that ended {@code interrupted}
     * with waiting calls, to carry it on later: kept with the calling run's waiting run (stored
     * with its session), so it must hold no secret.
     */
    JsonNode waitingState(AgentResult stopped, Session session);

    /**
     * Carries on a run that stopped: {@code resumption.state()} is what {@link #waitingState}
     * kept, {@code decisions()} one per waiting call (the run's own ids). What must not happen
     * twice (a message sent out) is {@linkplain Resumption#note noted} before it happens, on the
     * calling thread, before this returns; a resume cut short (the process killed) is asked
     * again with those {@linkplain Resumption#notes() notes}. The run may end with an answer,
     * fail, or stop again (with calls of ids not used before).
     *
     * @param session a fresh session for the run, as {@link AgentTool} gives its sub-agents
     * @throws IllegalArgumentException when the state or the decisions do not fit
     */
    AgentRun resume(Resumption resumption, Session session);
}
