package dev.bellows.mcp.auth;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * How the MCP servers of one program authorize: where tokens are kept, how a person is shown
 * the authorization page, whether a person is there at all, and where the one-line notices
 * ("open this URL ...") go.
 *
 * @param store         where registrations and tokens are kept
 * @param browser       how the authorization URL is opened
 * @param personPresent asked only when a login is needed: whether the authorization-code flow may
 *                      start (a person at a terminal); {@link Browser#FETCH} needs nobody
 * @param notices       where the lines for the person go (the URL to open); never a secret
 * @param needsLogin    the message for a server that needs a login nobody can give here, from
 *                      its name (the command line says which command to run)
 */
public record OAuthOptions(TokenStore store, Browser browser, BooleanSupplier personPresent, Consumer<String> notices,
                           UnaryOperator<String> needsLogin) {

    /** How the authorization URL reaches a person (env {@code BELLOWS_OAUTH_BROWSER} of the command line). */
    public enum Browser {
        /** The desktop's browser opens it; it is printed too. */
        SYSTEM(Duration.ofMinutes(5)),
        /** It is only printed. */
        NONE(Duration.ofMinutes(5)),
        /**
         * Nobody: Bellows requests the URL itself, without cookies, and follows the redirects to
         * its own loopback redirect URI: for CI and tests with an authorization server that
         * approves without a person.
         */
        FETCH(Duration.ofSeconds(20));

        private final Duration wait;

        Browser(Duration wait) {
            this.wait = wait;
        }

        /** How long Bellows listens for the redirect. */
        public Duration callbackTimeout() {
            return wait;
        }
    }

    /** Tokens in memory, the system browser, nobody present, notices dropped. */
    public static final OAuthOptions DEFAULTS = new OAuthOptions(TokenStore.inMemory(), Browser.SYSTEM, () -> false,
            line -> { }, name -> "MCP server \"" + name + "\" needs a person to log in (OAuth), and nobody can be asked here");

    public OAuthOptions {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(browser, "browser");
        Objects.requireNonNull(personPresent, "personPresent");
        Objects.requireNonNull(notices, "notices");
        Objects.requireNonNull(needsLogin, "needsLogin");
    }

    /** Whether an authorization-code flow may start now. */
    boolean mayAskPerson() {
        return browser == Browser.FETCH || personPresent.getAsBoolean();
    }

    public OAuthOptions withStore(TokenStore newStore) {
        return new OAuthOptions(newStore, browser, personPresent, notices, needsLogin);
    }

    public OAuthOptions withBrowser(Browser newBrowser) {
        return new OAuthOptions(store, newBrowser, personPresent, notices, needsLogin);
    }

    public OAuthOptions withPersonPresent(BooleanSupplier present) {
        return new OAuthOptions(store, browser, present, notices, needsLogin);
    }

    public OAuthOptions withNotices(Consumer<String> newNotices) {
        return new OAuthOptions(store, browser, personPresent, newNotices, needsLogin);
    }

    public OAuthOptions withNeedsLogin(UnaryOperator<String> message) {
        return new OAuthOptions(store, browser, personPresent, notices, message);
    }
}
