package dev.bellows.agent;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A run's body, run by whichever comes first: the thread the executor started for it, or a
 * caller of {@link AgentRun#await()} that finds it not yet begun. Handing the run to another
 * thread and waiting for it costs a thread switch at every wake-up (each streamed piece, each
 * tool); when the caller would only wait anyway, its own thread goes through the loop instead.
 */
final class RunStart implements Runnable {

    private final AtomicBoolean claimed = new AtomicBoolean();
    private Runnable body;      // read (and let go of) only by the thread that claimed it

    RunStart(Runnable body) {
        this.body = body;
    }

    /** The executor's side: runs the body unless an awaiting caller already took it. */
    @Override
    public void run() {
        Runnable taken = claim();
        if (taken != null) {
            taken.run();
        }
    }

    /**
     * Takes the body, once: the caller must then run it. Null when another thread took it.
     * Nothing is kept afterwards, so that a handle kept after its run does not keep the run's
     * session reachable through this.
     */
    Runnable claim() {
        if (!claimed.compareAndSet(false, true)) {
            return null;
        }
        Runnable taken = body;
        body = null;
        return taken;
    }
}
