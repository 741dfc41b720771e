package dev.bellows.temporal.internal;

import io.temporal.workflow.QueryMethod;
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
}
