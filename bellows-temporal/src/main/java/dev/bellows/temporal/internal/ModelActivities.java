package dev.bellows.temporal.internal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The model call of a durable run, on a worker: one attempt of one model call per execution. */
@ActivityInterface
public interface ModelActivities {

    /** The activity type's name in histories. */
    String MODEL_CALL = "BellowsModelCall";

    /**
     * Streams the answer to {@code request} from the worker's provider, heartbeating the stream
     * events so far ({@link LiveAnswer}), and returns every chunk.
     *
     * @param call    the call's name in the run ({@code model-N}), which the heartbeat carries
     * @param attempt which attempt of the loop's request this is, for the worker's interceptors
     *                (null from a workflow of a version before it was passed: a first attempt)
     */
    @ActivityMethod(name = MODEL_CALL)
    ModelAnswer stream(String call, WireRequest request, ModelAttempt attempt);
}
