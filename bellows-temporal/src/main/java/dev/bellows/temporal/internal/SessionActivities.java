package dev.bellows.temporal.internal;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** What a run of a session reads of the session's run before it. */
@ActivityInterface
public interface SessionActivities {

    /** The activity type's name in histories. */
    String CONVERSATION = "BellowsConversation";

    /** The conversation of the run with this workflow id, as it ended. */
    @ActivityMethod(name = CONVERSATION)
    Conversation conversation(String workflowId);
}
