package dev.bellows.mcp.auth;

/**
 * Authorization with an MCP server failed: its metadata names another resource, a person
 * denied the login or never came back, an authorization server answered with an error, or
 * nobody is there to log in ("needs login: ..."). The message is one line naming what failed;
 * it never holds a token, secret, code or assertion.
 */
public class OAuthException extends RuntimeException {

    private final boolean retryable;

    public OAuthException(String message) {
        this(message, null, false);
    }

    public OAuthException(String message, Throwable cause, boolean retryable) {
        super(OAuthSecret.redact(message), cause);
        this.retryable = retryable;
    }

    /**
     * Whether trying again later could help (the authorization server could not be reached);
     * false for a refusal, a mismatch or a missing login, which a retry would repeat.
     */
    public boolean retryable() {
        return retryable;
    }
}
