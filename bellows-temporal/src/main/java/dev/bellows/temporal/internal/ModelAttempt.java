package dev.bellows.temporal.internal;

/**
 * Which attempt of the loop's model request a model-call activity makes, for the worker's
 * {@code ModelInterceptor}s (a tracer's retry counter): the loop's retries are the workflow's,
 * so the worker cannot count them itself.
 *
 * @param agentName   the agent's name ({@code RunContext#agentName()})
 * @param number      1, then 2 for the first retry, and so on
 * @param lastFailure for a retry, the {@code error.type} of the attempt before it (the HTTP
 *                    status, else the failure's kind in lower case); else null
 */
public record ModelAttempt(String agentName, int number, String lastFailure) {
}
