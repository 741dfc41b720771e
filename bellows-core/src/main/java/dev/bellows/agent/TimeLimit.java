package dev.bellows.agent;

import java.util.List;

/**
 * Cuts a run short when the time of one of its limits is up ({@link Limits#maxTime}), even in
 * the middle of a model call or a tool call: a virtual thread sleeps until the first deadline,
 * then {@linkplain RunHandle#cutShort cuts the run short}, which cancels its model stream and
 * interrupts its tools (and so its sub-agents). Made only for limits with a time: a run without
 * one starts no thread. {@link #stop()} ends the wait; thread-safe.
 */
final class TimeLimit {

    private static final TimeLimit NONE = new TimeLimit(null);

    private final Thread watch;

    private TimeLimit(Thread watch) {
        this.watch = watch;
    }

    /** Watches the times of {@code budgets} for {@code run}; nothing when none of them has a time. */
    static TimeLimit watch(List<Budget> budgets, RunHandle run) {
        Budget first = null;
        for (Budget budget : budgets) {
            if (budget.deadline() != null && (first == null || budget.deadline() - first.deadline() < 0)) {
                first = budget;
            }
        }
        if (first == null) {
            return NONE;
        }
        Budget due = first;
        return new TimeLimit(Thread.ofVirtual().name("bellows-time-limit").start(() -> {
            try {
                long left;
                while ((left = due.deadline() - System.nanoTime()) > 0) {
                    java.util.concurrent.TimeUnit.NANOSECONDS.sleep(left);
                }
            } catch (InterruptedException e) {
                return;         // stopped: the run ended, or its part did
            }
            run.cutShort(due.timeUp());
        }));
    }

    /** Stops watching: the run, or the part of it these limits are for, has ended. */
    void stop() {
        if (watch != null) {
            watch.interrupt();
        }
    }
}
