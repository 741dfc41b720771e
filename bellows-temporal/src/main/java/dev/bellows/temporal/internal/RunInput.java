package dev.bellows.temporal.internal;

/**
 * What starts a durable run: the task, and for a run of a session the workflow id of the
 * session's run before it, whose conversation it continues, and the session's name. The model,
 * the key, the tools and the loop's settings are the workers'; none of them enters the
 * workflow's history.
 *
 * @param task     the user's message
 * @param previous the workflow id of the session's previous run, or null (a new conversation)
 * @param session  the session's name, or null for a run of no session; histories written before
 *                 it was recorded read as null
 * @param agent    the configured agent the client asked for, or null for the workers' own; histories
 *                 written before it was recorded read as null
 */
public record RunInput(String task, String previous, String session, String agent) {

    public RunInput(String task) {
        this(task, null, null, null);
    }

    public RunInput(String task, String previous, String session) {
        this(task, previous, session, null);
    }
}
