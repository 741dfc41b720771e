package dev.bellows.eval;

import dev.bellows.agent.Agent;

/**
 * Gives the agent under test for one run of a case. Called once per run, from several threads
 * at once. Every run goes in a fresh {@link dev.bellows.agent.Session} of its own (the runner's),
 * so runs never see each other's turns, whether they share an agent or not.
 *
 * <p>An agent that takes runs of different sessions at once (a {@code DefaultAgent} does) is
 * best built once and returned for every run: nothing that does not change between runs is
 * rebuilt. Give it {@link RunProbe#counter()} so that each run's tokens are counted:
 *
 * <pre>{@code
 * DefaultAgent agent = DefaultAgent.builder().provider(provider).model("gpt-4.1-mini")
 *         .toolRegistry(tools).modelInterceptor(RunProbe.counter()).build();
 * AgentFactory factory = (evalCase, probe) -> agent;
 * }</pre>
 *
 * An agent built per run (shaped by the case, say) installs the run's {@code probe} instead:
 *
 * <pre>{@code
 * AgentFactory factory = (evalCase, probe) -> probe.install(DefaultAgent.builder()
 *         .provider(provider).model("gpt-4.1-mini").toolRegistry(tools)
 *         .maxIterations(evalCase.maxIterations().orElse(10))).build();
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
