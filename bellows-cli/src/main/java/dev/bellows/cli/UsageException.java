package dev.bellows.cli;

/**
 * A usage or configuration error: exit status 2, the message as one line on standard error.
 * The message names the offending flag, variable or file and never contains a secret. A
 * session store that cannot be opened or read is said the same way, with exit status 1, as
 * {@code bellows sessions} says it ({@link #storeFault}).
 */
final class UsageException extends Exception {

    private final int status;

    /** Whether the message may be shown as it is: it repeats no value but checked ones (tool call ids). */
    final boolean verbatim;

    UsageException(String message) {
        this(message, 2, false);
    }

    UsageException(String message, boolean verbatim) {
        this(message, 2, verbatim);
    }

    private UsageException(String message, int status, boolean verbatim) {
        super(message, null, false, false);
        this.status = status;
        this.verbatim = verbatim;
    }

    /** A session store that cannot be opened or read (a damaged database, a server away, a session in use): exit status 1. */
    static UsageException storeFault(String message) {
        return new UsageException(message, 1, false);
    }

    /** The exit status: 2, or 1 for a {@link #storeFault}. */
    int status() {
        return status;
    }
}
