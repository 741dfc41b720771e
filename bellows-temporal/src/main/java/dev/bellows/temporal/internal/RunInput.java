package dev.bellows.temporal.internal;

/**
 * What starts a durable run: the task, nothing more. The model, the key, the tools and the loop's
 * settings are the workers'; none of them enters the workflow's history.
 */
public record RunInput(String task) {
}
