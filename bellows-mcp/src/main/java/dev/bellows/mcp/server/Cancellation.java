package dev.bellows.mcp.server;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether one {@code tools/call} was cancelled (the client's {@code notifications/cancelled},
 * its stream gone, the server closing), and what stops the work it started. Thread-safe: the
 * call's own thread sets the hook, any request's thread cancels.
 */
final class Cancellation {

    private static final Runnable NOTHING = () -> { };

    private final AtomicReference<Runnable> hook = new AtomicReference<>(NOTHING);
    private volatile boolean cancelled;

    /** Cancels: runs the current hook once (the run's {@code cancel()}, say). */
    void cancel() {
        cancelled = true;
        Runnable current = hook.getAndSet(NOTHING);
        current.run();
    }

    boolean isCancelled() {
        return cancelled;
    }

    /** What stops the call's current work; run at once when the call was cancelled already. */
    void onCancel(Runnable action) {
        hook.set(action);
        if (cancelled) {
            cancel();
        }
    }
}
