package dev.bellows.temporal.internal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The tool calls of a durable run, on a worker: one call per execution. */
@ActivityInterface
public interface ToolActivities {

    /** The activity type's name in histories. */
    String TOOL_CALL = "BellowsToolCall";

    /** Runs one call against the worker's tools; the tool's failures are values, not activity failures. */
    @ActivityMethod(name = TOOL_CALL)
    ToolOutcome call(ToolCallInput call);
}
