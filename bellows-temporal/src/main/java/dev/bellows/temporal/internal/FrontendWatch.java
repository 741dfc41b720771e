package dev.bellows.temporal.internal;

import dev.bellows.temporal.DurableAgent;
import dev.bellows.temporal.FollowNotice;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Whether a follower's frontend still answers. A follower used to look again every 200 ms for as
 * long as it took, in silence, when the frontend died: this says so after {@link #NOTICE_AFTER}
 * without an answer, and gives up after its patience ({@link DurableAgent#FRONTEND_PATIENCE} unless
 * the agent was built with another; a restarted frontend within that time is followed on). One
 * follower, one thread.
 */
final class FrontendWatch {

    /** How long the frontend may be silent before the follower says so. */
    static final Duration NOTICE_AFTER = Duration.ofSeconds(2);
    private final String target;
    private final Consumer<FollowNotice> notices;
    /** How long the follower waits for a silent frontend before it stops following. */
    private final Duration patience;
    private long silentSince = -1;     // System.nanoTime() of the first failure since the last answer
    private boolean said;

    FrontendWatch(String target, Consumer<FollowNotice> notices, Duration patience) {
        this.target = target;
        this.notices = notices;
        this.patience = patience;
    }

    /**
     * Whether the call failed because the frontend did not answer (rather than answered no). A
     * call in flight when the frontend's process dies ends UNKNOWN ("channel closed"), not
     * UNAVAILABLE: that ended the following at once, as an error.
     */
    static boolean unreachable(StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                || code == Status.Code.RESOURCE_EXHAUSTED || code == Status.Code.UNKNOWN;
    }

    /** The frontend answered. */
    void answered() {
        if (said) {
            notices.accept(new FollowNotice(FollowNotice.Kind.FRONTEND_BACK,
                    "the Temporal frontend at " + target + " answers again; following on"));
        }
        silentSince = -1;
        said = false;
    }

    /**
     * A call found the frontend silent.
     *
     * @throws FrontendLostException when it has been silent for its patience
     */
    void failed(StatusRuntimeException e) {
        long now = System.nanoTime();
        if (silentSince < 0) {
            silentSince = now;
        }
        long silent = now - silentSince;
        String why = e.getStatus().getCode() + (e.getStatus().getDescription() == null ? ""
                : ": " + e.getStatus().getDescription());
        if (silent >= patience.toNanos()) {
            throw new FrontendLostException("lost the Temporal frontend at " + target + ": no answer for "
                    + seconds(patience) + " s (" + why + "); the run itself may go on: follow it again once the"
                    + " frontend is back");
        }
        if (!said && silent >= NOTICE_AFTER.toNanos()) {
            said = true;
            notices.accept(new FollowNotice(FollowNotice.Kind.FRONTEND_LOST, "lost the Temporal frontend at " + target
                    + " (" + why + "); trying again for up to " + seconds(patience) + " s"));
        }
    }

    /** Whole seconds, or seconds with a fraction when the patience is not a whole number of them. */
    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0);
    }

    /** The frontend has not answered for its patience: the following ends with an error. */
    static final class FrontendLostException extends RuntimeException {
        FrontendLostException(String message) {
            super(message);
        }
    }
}
