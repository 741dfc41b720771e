package dev.bellows.a2a;

/** An A2A error raised by a server's handler or received by a client: the error kind and a message safe to show. */
public class A2aException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final A2aError error;

    /** An error of the given kind. */
    public A2aException(A2aError error, String message) {
        super(message);
        this.error = error;
    }

    /** Which A2A error this is. */
    public A2aError error() {
        return error;
    }
}
