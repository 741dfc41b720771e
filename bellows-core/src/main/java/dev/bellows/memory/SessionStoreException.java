package dev.bellows.memory;

/** A {@link SessionStore} could not read or write its database; the message says what and where. */
public class SessionStoreException extends RuntimeException {

    public SessionStoreException(String message) {
        super(message);
    }

    public SessionStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
