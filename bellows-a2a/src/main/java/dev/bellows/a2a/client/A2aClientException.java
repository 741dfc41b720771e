package dev.bellows.a2a.client;

/**
 * A call to a remote A2A agent failed for a reason other than an A2A error the agent answered
 * with (those are {@link dev.bellows.a2a.A2aException}s naming the {@link dev.bellows.a2a.A2aError}):
 * the card is missing or unusable, the agent could not be reached, it answered with an HTTP error
 * status or with something that is not A2A. The message says which, naming the URL (without its
 * query) and never a header's value.
 */
public final class A2aClientException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** The agent card could not be read, is not an A2A 1.0 card, or offers no binding Bellows speaks. */
        BAD_CARD,
        /** The agent could not be reached (refused, reset, timed out). */
        CONNECTION,
        /** The agent answered with an HTTP error status that carried no A2A error. */
        HTTP_STATUS,
        /** The agent's answer is not what A2A says it must be. */
        BAD_RESPONSE,
        /** The call was cancelled (the calling thread was interrupted, or the stream closed). */
        CANCELLED
    }

    private final Kind kind;
    private final int status;

    A2aClientException(Kind kind, String message) {
        this(kind, 0, message, null);
    }

    A2aClientException(Kind kind, int status, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.status = status;
    }

    /** What went wrong. */
    public Kind kind() {
        return kind;
    }

    /** The HTTP status for {@link Kind#HTTP_STATUS}, else 0. */
    public int status() {
        return status;
    }
}
