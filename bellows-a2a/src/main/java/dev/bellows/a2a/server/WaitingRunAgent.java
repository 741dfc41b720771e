package dev.bellows.a2a.server;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import java.util.List;

/**
 * An agent whose runs can stop at calls that wait for approval and be carried on later, whose
 * waiting runs {@link BellowsExecutor} serves as {@code input-required} tasks that the task's
 * next message decides. A {@link DefaultAgent} needs none of this: its waiting run is kept in the
 * session, and {@link DefaultAgent#resume} carries it on. Implement it for an agent whose waiting
 * runs live elsewhere (a durable run's in its workflow, say), keyed by the session the executor
 * gives each run: the context's conversation, the same object or the same stored session for
 * every task of the context.
 *
 * <p>Implementations must be thread-safe: runs of different sessions go on at the same time.
 */
public interface WaitingRunAgent extends Agent {

    /**
     * The calls the session's last run stopped at and that wait for a decision, in call order;
     * empty when no run of the session waits.
     */
    List<WaitingCall> waiting(Session session);

    /**
     * Carries the session's waiting run on with one decision per waiting call (approvals and
     * denials, as {@link #waiting} listed them); the run's events begin with its {@code loop_start}.
     *
     * @throws IllegalArgumentException when the decisions do not fit the waiting calls, or no run
     *                                  of the session waits; nothing is decided then
     */
    AgentRun resume(Session session, List<Decision> decisions);

    /**
     * Gives the session's waiting run up, its calls unmade (a new task of the context, or the
     * task canceled); returns once the session takes a new run. Does nothing when no run waits.
     *
     * @param reason why, for the calls' denials where the agent records them
     */
    void giveUp(Session session, String reason);
}
