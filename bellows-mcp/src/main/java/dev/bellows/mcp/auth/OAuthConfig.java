package dev.bellows.mcp.auth;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What cannot be discovered about a remote MCP server's authorization: the {@code "oauth"}
 * object of its configuration. A server needs none of it to use OAuth: when it answers 401,
 * Bellows discovers its authorization server and registers itself. {@link #DISCOVER} is that.
 *
 * @param clientId          a client registered beforehand; null: a Client ID Metadata Document,
 *                          else dynamic registration
 * @param clientSecret      that client's secret; null for a public client
 * @param clientMetadataUrl an HTTPS URL of Bellows' Client ID Metadata Document, used as the
 *                          {@code client_id} where the authorization server supports it; may be null
 * @param scopes            the scopes to ask for; null: chosen per request (the challenge's, else
 *                          all the resource supports, else none)
 * @param callbackPort      the loopback redirect port; 0: a free one (kept with a registration)
 * @param grantType         how tokens are obtained
 * @param privateKeyFile    a PKCS#8 PEM key: the client authenticates with {@code private_key_jwt}; may be null
 * @param signingAlgorithm  the JWS algorithm for the key ({@code ES256}, {@code ES384}, {@code RS256});
 *                          null: from the key
 * @param idp               {@link GrantType#JWT_BEARER} only: the organisation's identity provider
 */
public record OAuthConfig(String clientId, OAuthSecret clientSecret, URI clientMetadataUrl, List<String> scopes,
                          int callbackPort, GrantType grantType, Path privateKeyFile, String signingAlgorithm,
                          Idp idp) {

    /** Nothing configured: everything is discovered, the client registers itself. */
    public static final OAuthConfig DISCOVER = new OAuthConfig(null, null, null, null, 0,
            GrantType.AUTHORIZATION_CODE, null, null, null);

    /** How tokens are obtained. */
    public enum GrantType {
        /** A person approves in a browser (PKCE); the default. */
        AUTHORIZATION_CODE("authorization_code"),
        /** Machine to machine: the client's own credentials (a secret or a private key). */
        CLIENT_CREDENTIALS("client_credentials"),
        /**
         * Enterprise-managed authorization (SEP-990): the organisation's ID token is exchanged at
         * its identity provider for an ID-JAG, presented to the authorization server.
         */
        JWT_BEARER("jwt_bearer");

        private final String wire;

        GrantType(String wire) {
            this.wire = wire;
        }

        /** As written in configuration: {@code authorization_code}, {@code client_credentials}, {@code jwt_bearer}. */
        public String wireName() {
            return wire;
        }

        /** The grant type named so, or null. */
        public static GrantType named(String name) {
            for (GrantType type : values()) {
                if (type.wire.equals(name.toLowerCase(Locale.ROOT))) {
                    return type;
                }
            }
            return null;
        }

        /** Whether a person must approve in a browser. */
        public boolean needsPerson() {
            return this == AUTHORIZATION_CODE;
        }
    }

    /**
     * The organisation's identity provider, for {@link GrantType#JWT_BEARER}.
     *
     * @param tokenEndpoint where the ID token is exchanged (RFC 8693) for an ID-JAG
     * @param clientId      Bellows' client id there
     * @param idTokenFile   the file holding the ID token the organisation's single sign-on left
     */
    public record Idp(URI tokenEndpoint, String clientId, Path idTokenFile) {

        public Idp {
            Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(idTokenFile, "idTokenFile");
        }
    }

    public OAuthConfig {
        Objects.requireNonNull(grantType, "grantType");
        scopes = scopes == null ? null : List.copyOf(scopes);
        if (callbackPort < 0 || callbackPort > 65_535) {
            throw new IllegalArgumentException("\"callbackPort\" must be a port number (1 to 65535)");
        }
        if (clientMetadataUrl != null && !"https".equals(clientMetadataUrl.getScheme())) {
            throw new IllegalArgumentException("\"clientMetadataUrl\" must be an https:// URL");
        }
        if (signingAlgorithm != null && privateKeyFile == null) {
            throw new IllegalArgumentException("\"signingAlgorithm\" needs \"privateKeyFile\"");
        }
        if (signingAlgorithm != null && !List.of("ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256")
                .contains(signingAlgorithm)) {
            throw new IllegalArgumentException("\"signingAlgorithm\" must be ES256, ES384, ES512, RS256, RS384, RS512 or PS256");
        }
        if (clientSecret != null && privateKeyFile != null) {
            throw new IllegalArgumentException("\"clientSecret\" and \"privateKeyFile\" are two ways to authenticate the "
                    + "client: give one");
        }
        if ((clientSecret != null || privateKeyFile != null) && clientId == null) {
            throw new IllegalArgumentException("\"" + (clientSecret != null ? "clientSecret" : "privateKeyFile")
                    + "\" needs \"clientId\"");
        }
        switch (grantType) {
            case CLIENT_CREDENTIALS -> {
                if (clientId == null || (clientSecret == null && privateKeyFile == null)) {
                    throw new IllegalArgumentException("\"grantType\" client_credentials needs \"clientId\" with "
                            + "\"clientSecret\" or \"privateKeyFile\"");
                }
            }
            case JWT_BEARER -> {
                if (clientId == null || idp == null) {
                    throw new IllegalArgumentException("\"grantType\" jwt_bearer needs \"clientId\" and \"idp\"");
                }
            }
            case AUTHORIZATION_CODE -> {
            }
        }
        if (idp != null && grantType != GrantType.JWT_BEARER) {
            throw new IllegalArgumentException("\"idp\" belongs to \"grantType\" jwt_bearer");
        }
    }

    @Override
    public String toString() {
        return "OAuthConfig[" + grantType.wireName() + (clientId == null ? "" : ", client " + clientId)
                + (clientSecret == null ? "" : ", with a secret") + (privateKeyFile == null ? "" : ", key " + privateKeyFile)
                + (scopes == null ? "" : ", scopes " + String.join(" ", scopes)) + "]";
    }
}
