package dev.bellows.eval;

import dev.bellows.agent.Agent;

/**
 * Builds the agent under test for one run of a case. Called once per run, from several threads
 * at once: each run gets an agent (and a conversation) of its own, so runs never see each
 * other's turns. Install {@code probe} in the agent so that the run's tokens are counted.
 *
 * <pre>{@code
 * AgentFactory factory = (evalCase, probe) -> probe.install(DefaultAgent.builder()
 *         .provider(provider).model("gpt-4.1-mini").toolRegistry(tools)).build();
 * }</pre>
 */
@FunctionalInterface
public interface AgentFactory {

    /**
     * @param evalCase the case the agent runs (its limits, e.g. {@link EvalCase#maxIterations()}, may shape the agent)
     * @param probe    the runner's measuring of this run: install it with {@link RunProbe#install}
     */
    Agent create(EvalCase evalCase, RunProbe probe) throws Exception;
}
