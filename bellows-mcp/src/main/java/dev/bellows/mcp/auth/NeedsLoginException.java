package dev.bellows.mcp.auth;

/**
 * The server needs a person to log in (the authorization-code flow), and nobody can be asked
 * here (no terminal); nothing was sent to the authorization server.
 */
public final class NeedsLoginException extends OAuthException {

    public NeedsLoginException(String message) {
        super(message);
    }
}
