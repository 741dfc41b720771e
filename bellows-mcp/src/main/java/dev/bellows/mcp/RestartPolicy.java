package dev.bellows.mcp;

import java.time.Duration;
import java.util.Objects;

/**
 * How often, and after which waits, an MCP server that does not start is started again. The
 * same policy covers a server that fails at startup and one that stopped later and fails to
 * come back: after the {@code n}-th start in a row that failed, the next one comes
 * {@code firstDelay * 2^(n-1)} later, at most {@code maxDelay}; after {@code maxAttempts}
 * failed starts in a row Bellows gives up on the server (its tools answer with the reason).
 *
 * <p>A server that never started is retried in the background, so that its tools join the
 * registry when it comes up; one that stopped after running is started again by the next call
 * to one of its tools. A failure that another try cannot mend (the command does not exist,
 * the URL answers 404 or 401, the server refuses the session) is not retried.
 *
 * @param maxAttempts starts in a row that may fail before giving up, the first included
 *                    (1: a server that fails is not started again)
 * @param firstDelay  the wait after the first failed start; positive
 * @param maxDelay    the longest wait between two starts; at least {@code firstDelay}
 */
public record RestartPolicy(int maxAttempts, Duration firstDelay, Duration maxDelay) {

    /** 5 attempts, 1 s after the first failure, then 2 s, 4 s, 8 s: given up on about 15 s after the first. */
    public static final RestartPolicy DEFAULT = new RestartPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** One attempt: a server that fails is reported and not started again. */
    public static final RestartPolicy NEVER = new RestartPolicy(1, Duration.ofSeconds(1), Duration.ofSeconds(1));

    public RestartPolicy {
        Objects.requireNonNull(firstDelay, "firstDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("a restart policy needs at least 1 attempt, got " + maxAttempts);
        }
        if (firstDelay.isNegative() || firstDelay.isZero()) {
            throw new IllegalArgumentException("the first delay of a restart policy must be positive, got " + firstDelay);
        }
        if (maxDelay.compareTo(firstDelay) < 0) {
            throw new IllegalArgumentException("the longest delay of a restart policy (" + maxDelay
                    + ") must be at least its first delay (" + firstDelay + ")");
        }
    }

    /**
     * The wait after {@code failedStarts} starts in a row failed: {@code firstDelay} after one,
     * twice that after two, and so on up to {@code maxDelay}.
     */
    public Duration delayAfter(int failedStarts) {
        if (failedStarts < 1) {
            throw new IllegalArgumentException("failedStarts counts from 1, got " + failedStarts);
        }
        int shift = Math.min(failedStarts - 1, 40);
        long first = firstDelay.toNanos();
        if (shift >= Long.numberOfLeadingZeros(first) - 1) {
            return maxDelay; // doubling again would overflow: far past the cap anyway
        }
        Duration delay = Duration.ofNanos(first << shift);
        return delay.compareTo(maxDelay) <= 0 ? delay : maxDelay;
    }

    /** Whether {@code failedStarts} failed starts in a row use up the attempts. */
    public boolean exhaustedBy(int failedStarts) {
        return failedStarts >= maxAttempts;
    }
}
