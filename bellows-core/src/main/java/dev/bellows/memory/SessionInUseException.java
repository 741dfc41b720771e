package dev.bellows.memory;

/**
 * The session is open elsewhere (another process, or another handle in this one) and the
 * store allows one user per session. Nothing was changed; close the other user first.
 */
public class SessionInUseException extends SessionStoreException {

    public SessionInUseException(String message) {
        super(message);
    }
}
