package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Session;
import dev.bellows.temporal.DurableAgent;

/**
 * The agent of {@code bellows serve --a2a --temporal}'s A2A tasks (cli.md, "A2A: agents calling
 * agents"): each task is a durable run on the workers of the task queue, followed by the server,
 * so a task outlives the worker that was running it. A task's context is a durable session (its
 * name the store's session for the context), so a new task of the same context continues the
 * conversation there.
 */
final class DurableTasks implements Agent {

    private final DurableAgent durable;

    DurableTasks(DurableAgent durable) {
        this.durable = durable;
    }

    @Override
    public AgentRun run(String task) {
        return durable.run(task);
    }

    /** The next run of the durable session named after {@code session}, followed from its start. */
    @Override
    public AgentRun run(String task, Session session) {
        return session.name().map(name -> durable.follow(durable.start(task, name))).orElseGet(() -> durable.run(task));
    }
}
