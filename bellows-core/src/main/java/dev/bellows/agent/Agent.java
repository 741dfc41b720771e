package dev.bellows.agent;

/**
 * Something that takes a user's message and works on it, reporting every step as an event.
 *
 * <pre>{@code
 * AgentRun run = agent.run("What is in notes.txt?");
 * for (AgentEvent event : run) {               // blocks for each event; ends after loop_end
 *     if (event instanceof StreamEvent.MessageContent m) System.out.print(m.content());
 * }
 * AgentResult result = run.await();
 * }</pre>
 */
public interface Agent {

    /**
     * Starts working on {@code task} (the user's message) in the background and returns at once.
     *
     * @throws IllegalStateException when the agent does not take another run now (a
     *                               {@link DefaultAgent}'s own session runs one task at a time)
     */
    AgentRun run(String task);

    /**
     * Starts working on {@code task} in {@code session}: the run reads and extends that
     * session's conversation and plan. Runs of different sessions go on at the same time.
     *
     * @throws IllegalStateException when a run of {@code session} is still going on
     */
    AgentRun run(String task, Session session);
}
