package dev.bellows.temporal.internal;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** A durable run: the agent loop as a Temporal workflow. */
@WorkflowInterface
public interface RunWorkflow {

    /** The workflow type's name. */
    String TYPE = "BellowsRun";

    @WorkflowMethod(name = TYPE)
    RunOutcome run(RunInput input);

    /** The run's events from index {@code from} on, at most a page of them. */
    @QueryMethod(name = "events")
    EventPage events(long from);

    /** The query that answers the run's conversation, for the session's next run. */
    String CONVERSATION = "conversation";

    @QueryMethod(name = CONVERSATION)
    Conversation conversation();

    /** The update that carries a person's decisions to a run that waits for approval. */
    String DECIDE = "decide";

    /**
     * Carries the run that waits for approval on with these decisions, and returns the index in
     * the run's log of the first event of the resumed run (its {@code loop_start}).
     */
    @UpdateMethod(name = DECIDE)
    long decide(Decisions decisions);

    /** Refuses decisions that do not fit (nothing waits, an id left out, unknown or twice): nothing is recorded then. */
    @UpdateValidatorMethod(updateName = DECIDE)
    void checkDecisions(Decisions decisions);
}
