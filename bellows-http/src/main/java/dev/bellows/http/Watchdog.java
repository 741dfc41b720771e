package dev.bellows.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One client's time limits, enforced by a thread that ticks: every {@link #TICK} it looks at
 * the deadlines of the waits registered with it (a body read, the wait for the response
 * headers, the drain after {@code [DONE]}) and expires those that have passed.
 *
 * <p>Why a tick and not a scheduled task per wait: a task scheduled at the head of a
 * scheduler's queue wakes the scheduler's thread, and a request had two of them (its body's
 * idle check, its drain alarm), so every model request cost two wake-ups of another thread
 * and two task objects. Here a wait only writes its deadline, a volatile long, in its
 * {@link Watch}; a watch is put on the list (one compare-and-set, no object: the list is
 * linked through the watches) when it is armed while off it, and the ticking thread takes it
 * off again once it finds it with no deadline. The cost is precision: a deadline is noticed up
 * to one tick late, which for limits of seconds does not matter.
 *
 * <p>An idle client holds no thread: after {@link #QUIET_TICKS} ticks with nothing to watch
 * the thread ends, and the next watch armed starts a new one (a rare start, which may signal).
 * {@link #close()} stops it for good; arming fails from then on.
 */
final class Watchdog implements AutoCloseable {

    /** How often the deadlines are looked at: how late, at most, a wait is expired. */
    static final Duration TICK = Duration.ofMillis(50);
    /** Ticks with nothing to watch before the thread ends: 2 s at the default tick. */
    static final int QUIET_TICKS = 40;

    /** A deadline that is not set: {@link Watch#deadline} when nothing is being waited for. */
    static final long NONE = Long.MIN_VALUE;

    private static final int IDLE = 0;       // no thread; the next push starts one
    private static final int RUNNING = 1;
    private static final int CLOSED = 2;

    private static final VarHandle INCOMING;
    private static final VarHandle LISTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INCOMING = lookup.findVarHandle(Watchdog.class, "incoming", Watch.class);
            LISTED = lookup.findVarHandle(Watch.class, "listed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Something with a deadline. Subclasses call {@link Watchdog#arm} and {@link #disarm()}
     * around each wait and say what an expired deadline does.
     */
    abstract static class Watch {
        /** When the wait in progress expires ({@link System#nanoTime()}), or {@link #NONE}. */
        private volatile long deadline = NONE;
        /** On the watchdog's list or on its way there (pushed); set by compare-and-set only. */
        @SuppressWarnings("unused")     // through LISTED
        private volatile boolean listed;
        /** The next watch pushed before this one; owned by the pusher until the watchdog takes it. */
        private Watch next;

        /** Ends the wait in progress: the watchdog no longer looks at it. */
        final void disarm() {
            deadline = NONE;
        }

        /** The deadline now set, or {@link #NONE}. */
        final long deadline() {
            return deadline;
        }

        /**
         * On the watchdog's thread: {@code deadline} has passed. The wait may have ended or
         * another begun meanwhile: compare with {@link #deadline()}. May be called again at the
         * next tick while the same deadline stays set.
         */
        abstract void expired(long deadline);

        /** True once nothing of this watch will ever be waited for again (it is closed). */
        abstract boolean finished();
    }

    private final long tickNanos;
    private final int quietTicks;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** Watches pushed since the last tick, linked through {@link Watch#next}; newest first. */
    @SuppressWarnings("unused")     // through INCOMING
    private volatile Watch incoming;
    /** The watches looked at every tick: only the ticking thread touches it. */
    private final ArrayList<Watch> watches = new ArrayList<>();
    private volatile Thread thread;
    private final AtomicInteger threadsStarted = new AtomicInteger();
    /** For tests: run by the ticking thread as it ends (quiet or closed). */
    private volatile Runnable onStop = () -> { };
    private final boolean manual;

    /** The default tick and quiet period. */
    Watchdog() {
        this(TICK.toNanos(), QUIET_TICKS, false);
    }

    /**
     * @param manual no thread at all: the test that made it calls {@link #tick(long)} with
     *               the time it wants, so that nothing depends on how fast the machine is
     */
    Watchdog(long tickNanos, int quietTicks, boolean manual) {
        if (tickNanos <= 0 || quietTicks <= 0) {
            throw new IllegalArgumentException("tick and quiet ticks must be positive");
        }
        this.tickNanos = tickNanos;
        this.quietTicks = quietTicks;
        this.manual = manual;
    }

    /**
     * Sets the watch's deadline, putting it on the list if it is not there.
     *
     * @return false when the watchdog is closed (the deadline is cleared again then)
     */
    boolean arm(Watch watch, long deadline) {
        watch.deadline = deadline;
        if (!watch.listed && LISTED.compareAndSet(watch, false, true)) {
            push(watch);
        }
        if (state.get() == CLOSED) {
            watch.deadline = NONE;
            return false;
        }
        return true;
    }

    boolean isClosed() {
        return state.get() == CLOSED;
    }

    private void push(Watch watch) {
        Watch head;
        do {
            head = incoming;
            watch.next = head;
        } while (!INCOMING.compareAndSet(this, head, watch));
        if (!manual && state.get() == IDLE && state.compareAndSet(IDLE, RUNNING)) {
            start();
        }
    }

    private void start() {
        threadsStarted.incrementAndGet();
        thread = Thread.ofPlatform().name("bellows-sse-watchdog").daemon().start(this::loop);
    }

    private void loop() {
        try {
            int quiet = 0;
            while (state.get() == RUNNING) {
                LockSupport.parkNanos(this, tickNanos);
                if (state.get() != RUNNING) {
                    return;
                }
                tick(System.nanoTime());
                if (!watches.isEmpty() || incoming != null) {
                    quiet = 0;
                } else if (++quiet >= quietTicks) {
                    state.set(IDLE);
                    // A watch pushed while this thread was deciding to end found it RUNNING and
                    // started nobody: carry on for it, unless a new thread has already taken over.
                    if (incoming == null || !state.compareAndSet(IDLE, RUNNING)) {
                        return;
                    }
                    quiet = 0;
                }
            }
        } finally {
            onStop.run();
        }
    }

    /**
     * One look at every deadline, as of {@code now}: takes in the watches pushed since the last
     * look, expires those past their deadline, and lets go of those with none (they are pushed
     * again when next armed) and of those finished.
     */
    void tick(long now) {
        for (Watch watch = (Watch) INCOMING.getAndSet(this, (Watch) null); watch != null; ) {
            Watch next = watch.next;
            watch.next = null;
            watches.add(watch);
            watch = next;
        }
        for (int i = watches.size() - 1; i >= 0; i--) {
            Watch watch = watches.get(i);
            if (watch.finished()) {
                removeAt(i);
                continue;
            }
            long deadline = watch.deadline;
            if (deadline == NONE) {
                watch.listed = false;
                // Armed again since it was read: whoever wins 'listed' keeps it listed (here,
                // or pushed by the arming thread, in which case this copy goes).
                if (watch.deadline == NONE || !LISTED.compareAndSet(watch, false, true)) {
                    removeAt(i);
                }
                continue;
            }
            if (now - deadline >= 0) {
                watch.expired(deadline);
            }
        }
    }

    private void removeAt(int i) {
        Watch last = watches.removeLast();
        if (i < watches.size()) {
            watches.set(i, last);
        }
    }

    // --- for tests ---

    /** How many ticking threads were started so far. */
    int threadsStarted() {
        return threadsStarted.get();
    }

    /** The ticking thread, or null when none was ever started. */
    Thread thread() {
        return thread;
    }

    /** Runs {@code action} on the ticking thread each time it ends. */
    void onStop(Runnable action) {
        onStop = action;
    }

    /** Stops the ticking thread for good; arming fails from now on. */
    @Override
    public void close() {
        state.set(CLOSED);
        Thread running = thread;
        if (running != null) {
            LockSupport.unpark(running);
        }
    }
}
