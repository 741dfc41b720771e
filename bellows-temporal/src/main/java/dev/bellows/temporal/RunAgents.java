package dev.bellows.temporal;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.provider.Provider;
import dev.bellows.tool.ToolRegistry;

/**
 * The agents of a durable run: gives the run's agent its shape and the agents it calls
 * ({@link dev.bellows.agent.AgentTool}), built inside the run's workflow, so that a sub-agent is
 * part of the durable run (docs/temporal.md, "Sub-agents"): its model calls and tool calls are
 * activities in the run's history, and a sub-agent's call that needs approval makes the run wait.
 *
 * <p>Called once per run on the workflow's thread, and again at every replay: it must build the
 * same agents every time, from what it is given and the worker's fixed settings, and make no I/O
 * of its own (a remote agent, a provider of its own, a clock, a random number).
 */
@FunctionalInterface
public interface RunAgents {

    /**
     * Shapes {@code root} (the worker's {@link DurableWorker.Builder#loop loop} settings applied,
     * the workflow's provider and tools set): its name, instructions, model, its tools (a choice
     * of {@code parts.tools()}) and the agents it calls, each built from {@code parts.builder()}.
     * Leave the root's provider and listeners alone.
     */
    void configure(DefaultAgent.Builder root, Parts parts);

    /** What the workflow gives every agent of a run. */
    interface Parts {

        /** The run's tools, as recorded at its start: each call a tool-call activity. */
        ToolRegistry tools();

        /** A sub-agent's provider: each attempt a model-call activity, retries on durable timers. */
        Provider provider();

        /**
         * A fresh builder for a sub-agent, with {@link #provider()} and what the workflow needs of
         * every agent in it set (it runs on the workflow's thread, its tool calls one after another).
         */
        DefaultAgent.Builder builder();
    }
}
