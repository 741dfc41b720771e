package dev.bellows.cli;

/**
 * A usage or configuration error: exit status 2, the message as one line on standard error.
 * The message names the offending flag, variable or file and never contains a secret.
 */
final class UsageException extends Exception {

    UsageException(String message) {
        super(message, null, false, false);
    }
}
