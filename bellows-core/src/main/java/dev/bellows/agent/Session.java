package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import java.util.Objects;

/**
 * One conversation: its memory and its plan. An agent holds no conversation of its own
 * beyond a default session; give each user, chat or job its own session and one agent
 * serves them all at once.
 *
 * <pre>{@code
 * Session alice = new Session();                      // a fresh memory with its default limits
 * Session bob = new Session(ConversationMemory.builder().maxTokens(8_000).build());
 * AgentRun a = agent.run("Summarise a.txt", alice);   // both run at the same time
 * AgentRun b = agent.run("Summarise b.txt", bob);
 * }</pre>
 *
 * <p>A session takes one run at a time (the runs of a conversation follow each other);
 * starting another while one goes on is an {@link IllegalStateException}.
 */
public final class Session {

    private final ConversationMemory memory;
    private volatile Plan plan = Plan.empty();
    private AgentRun current;                   // guarded by this

    /** A session with a new {@link ConversationMemory} of default limits. */
    public Session() {
        this(ConversationMemory.builder().build());
    }

    /** A session over {@code memory}, which may already hold earlier turns. */
    public Session(ConversationMemory memory) {
        this.memory = Objects.requireNonNull(memory, "memory");
    }

    /** The conversation so far; {@link ConversationMemory#clear()} starts a new one. */
    public ConversationMemory memory() {
        return memory;
    }

    /** The current plan: empty until the model writes one with {@code update_plan}. */
    public Plan plan() {
        return plan;
    }

    /** Replaces the plan, e.g. with {@link Plan#empty()} for a new, unrelated task. */
    public void plan(Plan plan) {
        this.plan = Objects.requireNonNull(plan, "plan");
    }

    /** Takes {@code run} as the session's run, unless another is still going on. */
    synchronized void begin(AgentRun run) {
        if (current != null && !current.isDone()) {
            throw new IllegalStateException("this session is still running a task; await() or cancel() that run first,"
                    + " or give the new run a Session of its own");
        }
        current = run;
    }
}
