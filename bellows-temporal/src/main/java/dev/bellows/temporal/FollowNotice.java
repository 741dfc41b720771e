package dev.bellows.temporal;

import java.util.Objects;

/**
 * Why a followed durable run shows nothing for a while, in one line: told to
 * {@link DurableAgent.Builder#notices} within a few seconds of the cause, once per time it
 * begins, so that a follower does not wait in silence.
 *
 * @param kind what the follower waits for
 * @param text the same, in words (never a secret: the address, the task queue, gRPC's status)
 */
public record FollowNotice(Kind kind, String text) {

    /** What the follower waits for. */
    public enum Kind {
        /**
         * The Temporal frontend stopped answering: the follower tries again for up to
         * its patience ({@link DurableAgent.Builder#frontendPatience}), then the run's following ends with an error
         * (the run itself may go on: follow it again).
         */
        FRONTEND_LOST,
        /** The frontend answers again after {@link #FRONTEND_LOST}: the following goes on. */
        FRONTEND_BACK,
        /**
         * The run's next step has waited a few seconds for a worker: none polls its task queue
         * (or, where the server cannot tell, all are busy). The follower waits for one as long as
         * it takes.
         */
        NO_WORKER
    }

    public FollowNotice {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
    }
}
