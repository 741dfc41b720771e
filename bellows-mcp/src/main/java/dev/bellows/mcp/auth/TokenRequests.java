package dev.bellows.mcp.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.AuthorizationGrant;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.JWTBearerGrant;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.RefreshTokenGrant;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientAuthentication;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.JWTAuthenticationClaimsSet;
import com.nimbusds.oauth2.sdk.auth.PrivateKeyJWT;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.Audience;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.oauth2.sdk.token.AccessToken;
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import com.nimbusds.oauth2.sdk.token.TokenTypeURI;
import com.nimbusds.oauth2.sdk.token.TypelessAccessToken;
import com.nimbusds.oauth2.sdk.tokenexchange.TokenExchangeGrant;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The token requests of MCP authorization, built and read by the OAuth SDK: the code
 * exchange, refresh, client credentials, and the enterprise flow (an ID token exchanged at the
 * identity provider for an ID-JAG, RFC 8693, presented as a JWT bearer grant, RFC 7523). Every
 * request carries the {@code resource} (RFC 8707).
 */
final class TokenRequests {

    static final String ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

    private final OAuthHttp http;
    private final OAuthConfig config;

    TokenRequests(OAuthHttp http, OAuthConfig config) {
        this.http = http;
        this.config = config;
    }

    /** Where tokens are asked for, how the client authenticates there, and who issued them. */
    record Endpoint(String issuer, URI tokenEndpoint, List<String> authMethods) {
    }

    StoredCredentials.Tokens code(Endpoint at, StoredCredentials.Client client, OAuthSecret code, URI redirect,
                                  CodeVerifier verifier, String resource, List<String> scopes)
            throws IOException, InterruptedException {
        return request(at, client, new AuthorizationCodeGrant(new AuthorizationCode(code.reveal()), redirect, verifier),
                null, resource, scopes, null);
    }

    StoredCredentials.Tokens refresh(Endpoint at, StoredCredentials.Client client, StoredCredentials.Tokens current)
            throws IOException, InterruptedException {
        return request(at, client, new RefreshTokenGrant(new RefreshToken(current.refreshToken().reveal())), null,
                current.resource(), current.scopes(), current.refreshToken());
    }

    StoredCredentials.Tokens clientCredentials(Endpoint at, StoredCredentials.Client client, String resource,
                                               List<String> scopes) throws IOException, InterruptedException {
        return request(at, client, new ClientCredentialsGrant(), scopes, resource, scopes, null);
    }

    /** The enterprise flow (SEP-990): ID token to ID-JAG at the identity provider, ID-JAG to tokens here. */
    StoredCredentials.Tokens jwtBearer(Endpoint at, StoredCredentials.Client client, String resource, List<String> scopes)
            throws IOException, InterruptedException {
        OAuthConfig.Idp idp = config.idp();
        OAuthSecret idToken = readIdToken(idp.idTokenFile());
        TokenExchangeGrant exchange;
        try {
            exchange = new TokenExchangeGrant(new TypelessAccessToken(idToken.reveal()), TokenTypeURI.ID_TOKEN, null, null,
                    TokenTypeURI.parse(ID_JAG), List.of(new Audience(at.issuer())));
        } catch (ParseException e) {
            throw new IllegalStateException(e);
        }
        TokenRequest.Builder toIdp = new TokenRequest.Builder(idp.tokenEndpoint(), new ClientID(idp.clientId()), exchange)
                .resources(URI.create(resource));
        if (!scopes.isEmpty()) {
            toIdp.scope(new Scope(scopes.toArray(String[]::new)));
        }
        TokenResponse answer = parse(http.send(toIdp.build().toHTTPRequest()), "the identity provider " + idp.tokenEndpoint());
        OAuthSecret idJag = OAuthSecret.of(answer.toSuccessResponse().getTokens().getAccessToken().getValue());
        SignedJWT assertion;
        try {
            assertion = SignedJWT.parse(idJag.reveal());
        } catch (java.text.ParseException e) {
            throw new OAuthException("the identity provider " + idp.tokenEndpoint() + " answered with something that is "
                    + "not an ID-JAG (a signed JWT)");
        }
        return request(at, client, new JWTBearerGrant(assertion), scopes, resource, scopes, null);
    }

    private StoredCredentials.Tokens request(Endpoint at, StoredCredentials.Client client, AuthorizationGrant grant,
                                             List<String> scopeParameter, String resource, List<String> requested,
                                             OAuthSecret keptRefresh) throws IOException, InterruptedException {
        ClientAuthentication auth = authentication(at, client);
        TokenRequest.Builder builder = auth != null ? new TokenRequest.Builder(at.tokenEndpoint(), auth, grant)
                : new TokenRequest.Builder(at.tokenEndpoint(), new ClientID(client.clientId()), grant);
        if (scopeParameter != null && !scopeParameter.isEmpty()) {
            builder.scope(new Scope(scopeParameter.toArray(String[]::new)));
        }
        if (resource != null) {
            builder.resources(URI.create(resource));
        }
        TokenResponse answer = parse(http.send(builder.build().toHTTPRequest()), "the authorization server "
                + (at.issuer() == null ? at.tokenEndpoint().toString() : at.issuer()));
        var tokens = answer.toSuccessResponse().getTokens();
        AccessToken access = tokens.getAccessToken();
        RefreshToken refresh = tokens.getRefreshToken();
        Instant now = Instant.now();
        Instant expires = access.getLifetime() > 0 ? now.plusSeconds(access.getLifetime()) : null;
        List<String> granted = access.getScope() != null ? access.getScope().toStringList() : requested;
        return new StoredCredentials.Tokens(at.issuer(), at.tokenEndpoint(), resource, OAuthSecret.of(access.getValue()),
                refresh != null ? OAuthSecret.of(refresh.getValue()) : keptRefresh, expires, granted, now);
    }

    private static TokenResponse parse(com.nimbusds.oauth2.sdk.http.HTTPResponse response, String who) {
        TokenResponse answer;
        try {
            answer = TokenResponse.parse(response);
        } catch (ParseException e) {
            throw new OAuthException(who + " answered the token request with HTTP " + response.getStatusCode()
                    + " and no token (" + e.getMessage() + ")");
        }
        if (!answer.indicatesSuccess()) {
            ErrorObject error = answer.toErrorResponse().getErrorObject();
            throw new TokenRefused(who + " refused the token request: " + describe(error, response.getStatusCode()));
        }
        return answer;
    }

    /** {@code invalid_grant: the code expired} (HTTP 400). */
    static String describe(ErrorObject error, int status) {
        String code = error == null || error.getCode() == null ? "HTTP " + status : error.getCode();
        String description = error == null ? null : error.getDescription();
        return code + (description == null || description.isBlank() ? "" : ": " + description)
                + (error != null && error.getCode() != null ? " (HTTP " + status + ")" : "");
    }

    /**
     * How the client authenticates at the token endpoint: {@code private_key_jwt} with the
     * configured key ({@code iss} = {@code sub} = the client id, {@code aud} = the issuer); a
     * secret as registered, else {@code client_secret_basic} where the server allows it, else
     * {@code client_secret_post}; null for a public client.
     */
    ClientAuthentication authentication(Endpoint at, StoredCredentials.Client client) {
        ClientID id = new ClientID(client.clientId());
        if (config.privateKeyFile() != null && client.clientId().equals(config.clientId())) {
            PrivateKeys.SigningKey key = PrivateKeys.read(config.privateKeyFile(), config.signingAlgorithm());
            String audience = at.issuer() != null ? at.issuer() : at.tokenEndpoint().toString();
            try {
                return new PrivateKeyJWT(new JWTAuthenticationClaimsSet(id, new Audience(audience)), key.algorithm(),
                        key.key(), null, null);
            } catch (JOSEException e) {
                throw new OAuthException("privateKeyFile " + config.privateKeyFile() + ": cannot sign with it ("
                        + e.getMessage() + ")");
            }
        }
        if (client.clientSecret() == null) {
            return null;
        }
        Secret secret = new Secret(client.clientSecret().reveal());
        String method = client.authMethod();
        if ("client_secret_post".equals(method)) {
            return new ClientSecretPost(id, secret);
        }
        if ("client_secret_basic".equals(method)) {
            return new ClientSecretBasic(id, secret);
        }
        List<String> allowed = at.authMethods();
        if (allowed == null || allowed.contains("client_secret_basic") || !allowed.contains("client_secret_post")) {
            return new ClientSecretBasic(id, secret);
        }
        return new ClientSecretPost(id, secret);
    }

    private static OAuthSecret readIdToken(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (text.isEmpty()) {
                throw new OAuthException("idp.idTokenFile " + file + " is empty: sign in with your organisation first");
            }
            return OAuthSecret.of(text);
        } catch (NoSuchFileException e) {
            throw new OAuthException("idp.idTokenFile " + file + ": no such file (sign in with your organisation first)");
        } catch (IOException e) {
            throw new OAuthException("idp.idTokenFile " + file + ": cannot be read");
        }
    }

    /** An authorization server answered a token request with an OAuth error. */
    static final class TokenRefused extends OAuthException {
        TokenRefused(String message) {
            super(message);
        }
    }
}
