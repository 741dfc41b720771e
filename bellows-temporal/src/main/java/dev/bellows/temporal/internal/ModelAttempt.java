package dev.bellows.temporal.internal;

/**
 * Which attempt of the loop's model request a model-call activity makes, for the worker's
 * {@code ModelInterceptor}s (a tracer's retry counter): the loop's retries are the workflow's,
 * so the worker cannot count them itself; and what the run's interceptors see of the run in the
 * workflow (the task, the iteration, the session), so that the worker's see the same.
 *
 * @param agentName   the agent's name ({@code RunContext#agentName()})
 * @param number      1, then 2 for the first retry, and so on
 * @param lastFailure for a retry, the {@code error.type} of the attempt before it (the HTTP
 *                    status, else the failure's kind in lower case); else null
 * @param session     the session the run belongs to, or null
 * @param task        the run's task (null in a history recorded before it was sent)
 * @param iteration   the loop's iteration the request is for
 */
public record ModelAttempt(String agentName, int number, String lastFailure, String session, String task,
                           int iteration) {
}
