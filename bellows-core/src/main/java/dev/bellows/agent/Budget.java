package dev.bellows.agent;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What runs have used of their {@link Limits}: one per run for an agent's own limits, one per
 * tree for its tree limits, shared by every run of the tree (on many threads: thread-safe).
 * Time is read from {@link System#nanoTime()} by the driver, never by the machine.
 */
final class Budget {

    private final Limits limits;
    /** Whose limits, for the message: "agent X's" or "the run's agents' together". */
    private final String whose;
    private final long start = System.nanoTime();
    private final AtomicInteger iterations = new AtomicInteger();
    private final AtomicLong tokens = new AtomicLong();

    Budget(Limits limits, String whose) {
        this.limits = limits;
        this.whose = whose;
    }

    /** Counts a model call about to be made, or says why it may not be: the first of the budgets that is spent. */
    static String beginModelCall(List<Budget> budgets) {
        for (Budget budget : budgets) {
            String spent = budget.spent();
            if (spent != null) {
                return spent;
            }
        }
        budgets.forEach(budget -> budget.iterations.incrementAndGet());
        return null;
    }

    /** Counts the tokens a model call reported. */
    static void used(List<Budget> budgets, long tokens) {
        budgets.forEach(budget -> budget.tokens.addAndGet(tokens));
    }

    /** When its time is up ({@link System#nanoTime()}), or null for limits without a time. */
    Long deadline() {
        return limits.maxTime() == null ? null : start + limits.maxTime().toNanos();
    }

    /** Why the run ends when its time is up. */
    String timeUp() {
        return "limit reached: " + whose + " time of " + limits.maxTime().toMillis() + " ms is up";
    }

    /** Why no more model calls may be made, or null. */
    String spent() {
        if (iterations.get() >= limits.maxIterations()) {
            return "limit reached: " + whose + " " + limits.maxIterations() + " iterations are used";
        }
        if (tokens.get() >= limits.maxTokens()) {
            return "limit reached: " + whose + " " + limits.maxTokens() + " tokens are used (" + tokens.get() + ")";
        }
        if (limits.maxTime() != null && System.nanoTime() - start >= limits.maxTime().toNanos()) {
            return timeUp();
        }
        return null;
    }
}
