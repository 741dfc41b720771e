package dev.bellows.temporal.internal;

/**
 * What starts a durable run: the task, and for a run of a session the workflow id of the
 * session's run before it, whose conversation it continues. The model, the key, the tools and
 * the loop's settings are the workers'; none of them enters the workflow's history.
 *
 * @param task     the user's message
 * @param previous the workflow id of the session's previous run, or null (a new conversation)
 */
public record RunInput(String task, String previous) {

    public RunInput(String task) {
        this(task, null);
    }
}
