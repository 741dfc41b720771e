package dev.bellows.temporal.internal;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.provider.RetryListener;
import dev.bellows.provider.RetryingProvider;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;

/**
 * The agent loop as a workflow: the one loop of bellows-core, run on the workflow's thread, with
 * a provider whose attempts are model-call activities, tools whose calls are tool-call
 * activities, the retry waits as durable timers and the jitter from the workflow's seeded
 * random. Every decision the loop takes follows from the task and the recorded results, so a
 * replay on any worker takes the same ones. The loop's events go to the run's {@link EventLog}.
 */
public final class RunWorkflowImpl implements RunWorkflow {

    private final WorkerSetup setup;
    private final EventLog log = new EventLog();

    public RunWorkflowImpl(WorkerSetup setup) {
        this.setup = setup;
    }

    @Override
    public RunOutcome run(RunInput input) {
        WorkerSetup.Catalog catalog = Workflow.sideEffect(WorkerSetup.Catalog.class, setup::catalog);
        ActivityProvider models = new ActivityProvider(setup, log);
        RemoteTools tools = new RemoteTools(setup, Workflow.getInfo().getWorkflowId(), models::cancelled);
        RetryingProvider provider = new RetryingProvider(models, setup.retryPolicy(), RetryListener.NONE,
                delay -> {
                    try {
                        Workflow.sleep(delay);
                    } catch (CanceledFailure e) {
                        models.cancelled();     // the next attempt ends the run as cancelled
                    }
                },
                Workflow.newRandom());
        DefaultAgent.Builder builder = DefaultAgent.builder();
        setup.loop().accept(builder);
        DefaultAgent agent = builder.provider(provider).toolRegistry(tools.registry(catalog))
                .listener(log::add).build();
        AgentResult result = agent.runBlocking(input.task());
        return new RunOutcome(result.reason().wireName(), result.result());
    }

    @Override
    public EventPage events(long from) {
        return log.page(from);
    }
}
