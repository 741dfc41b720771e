package dev.bellows.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * When and how often a failed model call is tried again, as the CLI spec's "Provider
 * failures" section says: up to {@code maxRetries} retries, exponential backoff from
 * {@code initialDelay}, honouring the server's {@code Retry-After} up to {@code maxRetryAfter}.
 *
 * <p>The wait before retry {@code n} (1 for the first retry) is
 * {@code max(backoff(n), min(Retry-After, maxRetryAfter))} where
 * {@code backoff(n) = min(initialDelay * 2^(n-1) * (1 + 0.25 * r), maxRetryAfter)}, {@code r}
 * uniform in [0, 1). So:
 * <ul>
 *   <li>the jitter only lengthens the wait (by up to a quarter): the spec's 500 ms, 1 s,
 *       2 s are floors, and clients that failed together spread out instead of retrying in
 *       step;</li>
 *   <li>a {@code Retry-After} is a lower bound the server asked for, honoured up to the cap
 *       (a server asking for an hour gets 60 s, and the retry likely fails fast again);</li>
 *   <li>a {@code Retry-After} shorter than our own backoff (0, or an HTTP-date already past)
 *       does not make us retry sooner than the backoff: it never shortens the wait.</li>
 * </ul>
 *
 * @param maxRetries    retries after the first attempt (0: no retries)
 * @param initialDelay  the backoff before the first retry
 * @param maxRetryAfter the longest wait, whatever the server's {@code Retry-After} says
 */
public record RetryPolicy(int maxRetries, Duration initialDelay, Duration maxRetryAfter) {

    /** How much the jitter may add to the exponential backoff, as a fraction of it. */
    static final double JITTER = 0.25;

    public RetryPolicy {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries cannot be negative, got " + maxRetries);
        }
        if (initialDelay.isNegative()) {
            throw new IllegalArgumentException("initialDelay cannot be negative, got " + initialDelay);
        }
        if (maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("maxRetryAfter cannot be negative, got " + maxRetryAfter);
        }
    }

    /** 3 retries, backoff from 500 ms, {@code Retry-After} honoured up to 60 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(3, Duration.ofMillis(500), Duration.ofSeconds(60));
    }

    /** No retries at all. */
    public static RetryPolicy none() {
        return new RetryPolicy(0, Duration.ofMillis(500), Duration.ofSeconds(60));
    }

    /** This policy with another number of retries (the CLI's {@code --max-retries}). */
    public RetryPolicy withMaxRetries(int maxRetries) {
        return new RetryPolicy(maxRetries, initialDelay, maxRetryAfter);
    }

    /**
     * The wait before retry number {@code retryNumber} (1 for the first retry) after
     * {@code failure}; see the class comment for the formula.
     *
     * @param random the jitter's source (tests pass a fixed one)
     */
    public Duration delayBefore(int retryNumber, ProviderException failure, RandomGenerator random) {
        if (retryNumber < 1) {
            throw new IllegalArgumentException("retryNumber counts from 1, got " + retryNumber);
        }
        Objects.requireNonNull(random, "random");
        Duration backoff = backoff(retryNumber);
        long jitterNanos = (long) (backoff.toNanos() * JITTER * random.nextDouble());
        Duration delay = min(backoff.plusNanos(jitterNanos), max(maxRetryAfter, initialDelay));
        if (failure != null && failure.retryAfter().isPresent()) {
            Duration asked = min(failure.retryAfter().get(), maxRetryAfter);
            if (asked.compareTo(delay) > 0) {
                delay = asked;
            }
        }
        return delay;
    }

    /** {@code initialDelay * 2^(n-1)}, capped at {@code maxRetryAfter} (no overflow for large n). */
    private Duration backoff(int retryNumber) {
        int shift = Math.min(retryNumber - 1, 40);
        Duration cap = max(maxRetryAfter, initialDelay);
        long initialNanos = initialDelay.toNanos();
        if (initialNanos == 0) {
            return Duration.ZERO;
        }
        if (shift >= Long.numberOfLeadingZeros(initialNanos) - 1) {
            return cap;
        }
        return min(Duration.ofNanos(initialNanos << shift), cap);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
