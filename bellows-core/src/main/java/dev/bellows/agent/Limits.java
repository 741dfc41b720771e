package dev.bellows.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * How far runs may go: model calls (iterations), tokens (what the model reports it read and
 * wrote) and time (since the run began). An immutable value; {@link #none()} sets no limit.
 * Given to {@link AgentBuilder#limits} it bounds each run of that agent (each call of it as a
 * sub-agent is a run of its own); given to {@link AgentBuilder#treeLimits} it bounds a run of
 * that agent together with every agent it runs, sub-agents and handoffs, to any depth.
 *
 * <p>Limits are checked before each model call; a time limit also cuts short what runs when it
 * passes: the model stream under way is cancelled and running tools (sub-agents too) are
 * interrupted. Tokens are counted when a model call reports them, so a call under way finishes.
 * A run past its agent's iterations ends {@code max_iterations}, as
 * {@link AgentBuilder#maxIterations} says; past any other limit it ends {@code error}, naming
 * the limit, and a sub-agent's failed call tells its caller's model so. A time limit costs one
 * sleeping virtual thread per run; none without one.
 */
public final class Limits {

    private static final Limits NONE = new Limits(Integer.MAX_VALUE, Long.MAX_VALUE, null);

    private final int maxIterations;
    private final long maxTokens;
    private final Duration maxTime;

    private Limits(int maxIterations, long maxTokens, Duration maxTime) {
        this.maxIterations = maxIterations;
        this.maxTokens = maxTokens;
        this.maxTime = maxTime;
    }

    /** No limit at all. */
    public static Limits none() {
        return NONE;
    }

    /**
     * These limits with at most {@code iterations} model calls.
     *
     * @throws IllegalArgumentException below 1
     */
    public Limits maxIterations(int iterations) {
        if (iterations < 1) {
            throw new IllegalArgumentException("maxIterations must be at least 1, not " + iterations);
        }
        return new Limits(iterations, maxTokens, maxTime);
    }

    /**
     * These limits with at most {@code tokens} tokens, input and output together.
     *
     * @throws IllegalArgumentException below 1
     */
    public Limits maxTokens(long tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, not " + tokens);
        }
        return new Limits(maxIterations, tokens, maxTime);
    }

    /**
     * These limits with at most {@code time} since the run began.
     *
     * @throws IllegalArgumentException for a time that is not positive
     */
    public Limits maxTime(Duration time) {
        Objects.requireNonNull(time, "time");
        if (time.isNegative() || time.isZero()) {
            throw new IllegalArgumentException("maxTime must be positive, not " + time);
        }
        return new Limits(maxIterations, maxTokens, time);
    }

    /** The most model calls; {@link Integer#MAX_VALUE} for no limit. */
    public int maxIterations() {
        return maxIterations;
    }

    /** The most tokens; {@link Long#MAX_VALUE} for no limit. */
    public long maxTokens() {
        return maxTokens;
    }

    /** The most time, or null for no limit. */
    public Duration maxTime() {
        return maxTime;
    }

    boolean isNone() {
        return maxIterations == Integer.MAX_VALUE && maxTokens == Long.MAX_VALUE && maxTime == null;
    }

    @Override
    public String toString() {
        return "Limits[iterations " + (maxIterations == Integer.MAX_VALUE ? "-" : maxIterations) + ", tokens "
                + (maxTokens == Long.MAX_VALUE ? "-" : maxTokens) + ", time " + (maxTime == null ? "-" : maxTime) + "]";
    }
}
