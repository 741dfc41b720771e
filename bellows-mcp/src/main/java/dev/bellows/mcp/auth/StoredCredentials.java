package dev.bellows.mcp.auth;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What Bellows keeps for one MCP server (by its URL): the client it registered with the
 * server's authorization server, and the tokens it was given. Either may be null.
 */
public record StoredCredentials(Client client, Tokens tokens) {

    /** Nothing stored. */
    public static final StoredCredentials NONE = new StoredCredentials(null, null);

    /**
     * A client registration (dynamic registration, RFC 7591), reused with its redirect port.
     *
     * @param issuer       the authorization server it is registered with
     * @param clientId     its id
     * @param clientSecret its secret, or null (a public client)
     * @param authMethod   how it authenticates at the token endpoint ({@code none},
     *                     {@code client_secret_basic}, {@code client_secret_post}); null: unknown
     * @param redirectPort the loopback port of its redirect URI
     */
    public record Client(String issuer, String clientId, OAuthSecret clientSecret, String authMethod, int redirectPort) {

        public Client {
            Objects.requireNonNull(issuer, "issuer");
            Objects.requireNonNull(clientId, "clientId");
        }

        @Override
        public String toString() {
            return "Client[" + clientId + " at " + issuer + (clientSecret == null ? "" : ", with a secret") + "]";
        }
    }

    /**
     * Tokens for the server, with what is needed to refresh them.
     *
     * @param issuer        the authorization server that issued them
     * @param tokenEndpoint where they are refreshed
     * @param resource      the resource indicator they were issued for (RFC 8707)
     * @param accessToken   the access token
     * @param refreshToken  the refresh token, or null
     * @param expiresAt     when the access token expires, or null when the server did not say
     * @param scopes        the scopes granted
     * @param obtainedAt    when the access token was obtained, or null when not known
     */
    public record Tokens(String issuer, URI tokenEndpoint, String resource, OAuthSecret accessToken,
                         OAuthSecret refreshToken, Instant expiresAt, List<String> scopes, Instant obtainedAt) {

        public Tokens {
            Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
            Objects.requireNonNull(accessToken, "accessToken");
            scopes = scopes == null ? List.of() : List.copyOf(scopes);
        }

        /**
         * Whether the access token expires within {@code margin} of {@code now} (or has). A token
         * issued for less than twice the margin is given half its lifetime instead, so that a
         * short-lived token is not refreshed before every request.
         */
        public boolean expiresWithin(Duration margin, Instant now) {
            if (expiresAt == null) {
                return false;
            }
            Duration within = margin;
            if (obtainedAt != null) {
                Duration half = Duration.between(obtainedAt, expiresAt).dividedBy(2);
                if (half.compareTo(within) < 0) {
                    within = half;
                }
            }
            return !now.plus(within).isBefore(expiresAt);
        }

        @Override
        public String toString() {
            return "Tokens[" + (refreshToken == null ? "access" : "access and refresh") + ", scopes "
                    + String.join(" ", scopes) + (expiresAt == null ? "" : ", until " + expiresAt) + "]";
        }
    }

    /** With these tokens (null: none). */
    public StoredCredentials withTokens(Tokens newTokens) {
        return new StoredCredentials(client, newTokens);
    }

    /** With this client (null: none). */
    public StoredCredentials withClient(Client newClient) {
        return new StoredCredentials(newClient, tokens);
    }

    /** Whether nothing is stored. */
    public boolean isEmpty() {
        return client == null && tokens == null;
    }
}
