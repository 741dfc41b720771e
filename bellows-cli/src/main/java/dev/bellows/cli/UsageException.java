package dev.bellows.cli;

/**
 * A usage or configuration error: exit status 2, the message as one line on standard error.
 * The message names the offending flag, variable or file and never contains a secret.
 */
final class UsageException extends Exception {

    /** Whether the message may be shown as it is: it repeats no value but checked ones (tool call ids). */
    final boolean verbatim;

    UsageException(String message) {
        this(message, false);
    }

    UsageException(String message, boolean verbatim) {
        super(message, null, false, false);
        this.verbatim = verbatim;
    }
}
