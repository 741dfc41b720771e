package dev.bellows.temporal.internal;

/** How a durable run ended: the {@code loop_end} reason's wire name and its result. */
public record RunOutcome(String reason, String result) {
}
