package dev.bellows.cli;

/**
 * A usage or configuration error: exit status 2, the message as one line on standard error.
 * The message names the offending flag, variable or file and never contains a secret. A
 * session store that cannot be opened or read is said the same way, with exit status 1, as
 * {@code bellows sessions} says it ({@link #storeFault}).
 */
final class UsageException extends Exception {

    private final int status;

    UsageException(String message) {
        this(message, 2);
    }

    private UsageException(String message, int status) {
        super(message, null, false, false);
        this.status = status;
    }

    /** A session store that cannot be opened or read (a damaged database, a server away, a session in use): exit status 1. */
    static UsageException storeFault(String message) {
        return new UsageException(message, 1);
    }

    /** The exit status: 2, or 1 for a {@link #storeFault}. */
    int status() {
        return status;
    }
}
