package dev.bellows.provider;

import java.time.Duration;
import java.util.Objects;

/**
 * A model call failed and is about to be tried again: the CLI's {@code retry} event.
 *
 * @param attempt              the number of the attempt about to start (2 for the first retry)
 * @param reason               why the previous attempt failed (its error message, key-free)
 * @param delay                how long the wait before it is
 * @param discardPartialOutput true when the failed attempt had already delivered chunks:
 *                             whatever the consumer showed or kept of them must be discarded,
 *                             the new attempt starts the answer afresh
 */
public record RetryNotice(int attempt, String reason, Duration delay, boolean discardPartialOutput) {

    public RetryNotice {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(delay, "delay");
        if (attempt < 2) {
            throw new IllegalArgumentException("a retry is attempt 2 or later, got " + attempt);
        }
    }
}
