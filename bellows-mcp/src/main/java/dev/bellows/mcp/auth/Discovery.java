package dev.bellows.mcp.auth;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import com.nimbusds.oauth2.sdk.as.AuthorizationServerMetadata;
import com.nimbusds.oauth2.sdk.auth.ClientAuthenticationMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds a server's authorization server as the MCP authorization spec (2025-11-25) says: the
 * protected-resource metadata (RFC 9728) from the challenge's {@code resource_metadata}, else
 * at {@code /.well-known/oauth-protected-resource} plus the server's path, else at the root;
 * its {@code resource} must be the server's URL (same origin, a prefix of the path). Then the
 * authorization server's metadata (RFC 8414, OpenID Connect Discovery), whose {@code issuer}
 * must be the URL it was discovered for. Servers of the 2025-03-26 revision have no resource
 * metadata: their origin is the authorization server, and without its metadata its endpoints
 * are {@code /authorize}, {@code /token} and {@code /register} there.
 */
final class Discovery {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final String PRM = "/.well-known/oauth-protected-resource";

    private Discovery() {
    }

    /** What was discovered: the resource (null for a 2025-03-26 server) and its authorization server. */
    record Result(ResourceMetadata resource, AuthServer server) {
    }

    /**
     * The protected-resource metadata.
     *
     * @param resource the resource identifier, the {@code resource} of every authorization and token request
     * @param scopes   its {@code scopes_supported}; empty when none
     */
    record ResourceMetadata(URI resource, List<URI> authorizationServers, List<String> scopes) {
    }

    /**
     * An authorization server.
     *
     * @param legacy whether it was found the 2025-03-26 way (no resource metadata)
     */
    record AuthServer(String issuer, URI authorizationEndpoint, URI tokenEndpoint, URI registrationEndpoint,
                      List<String> scopes, List<String> authMethods, boolean clientIdMetadataDocuments,
                      List<String> pkceMethods, boolean legacy) {

        /** Whether {@code client_secret_basic} may be used: listed, or nothing listed (RFC 8414's default). */
        boolean allows(String method) {
            return authMethods == null ? method.equals("client_secret_basic") : authMethods.contains(method);
        }
    }

    static Result discover(OAuthHttp http, URI server, Challenge challenge) throws IOException, InterruptedException {
        ResourceMetadata resource = resourceMetadata(http, server, challenge);
        if (resource == null) {
            URI origin = origin(server);
            AuthServerUrls.requireSecure(origin, "the authorization server of " + display(server)
                    + " (its origin: it publishes no protected-resource metadata)");
            AuthServer legacy = authServerMetadata(http, origin, false);
            if (legacy == null) {
                legacy = new AuthServer(origin.toString(), origin.resolve("/authorize"), origin.resolve("/token"),
                        origin.resolve("/register"), List.of(), null, false, null, true);
            }
            return new Result(null, legacy);
        }
        if (resource.authorizationServers().isEmpty()) {
            throw new OAuthException("the protected-resource metadata of " + display(server)
                    + " names no authorization server");
        }
        URI issuer = resource.authorizationServers().getFirst();
        AuthServerUrls.requireSecure(issuer, "the authorization server named by the protected-resource metadata of "
                + display(server) + ",");
        AuthServer as = authServerMetadata(http, issuer, true);
        if (as == null) {
            throw new OAuthException("the authorization server " + issuer + " publishes no metadata (looked for RFC 8414 "
                    + "and OpenID Connect discovery documents)", null, false);
        }
        return new Result(resource, as);
    }

    private static ResourceMetadata resourceMetadata(OAuthHttp http, URI server, Challenge challenge)
            throws IOException, InterruptedException {
        List<URI> candidates = new ArrayList<>();
        if (challenge != null && challenge.resourceMetadata() != null) {
            candidates.add(challenge.resourceMetadata());
        } else {
            URI origin = origin(server);
            String path = server.getRawPath() == null ? "" : server.getRawPath();
            if (!path.isEmpty() && !path.equals("/")) {
                candidates.add(URI.create(origin + PRM + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path)));
            }
            candidates.add(URI.create(origin + PRM));
        }
        for (URI candidate : candidates) {
            OAuthHttp.Document response = http.get(candidate);
            if (response.statusCode() != 200) {
                continue;
            }
            JsonNode document = parse(response.body(), candidate);
            if (document == null) {
                continue;
            }
            String named = document.path("resource").asString(null);
            if (named == null) {
                throw new OAuthException("the protected-resource metadata at " + candidate + " names no resource");
            }
            URI resource;
            try {
                resource = new URI(named);
            } catch (URISyntaxException e) {
                throw new OAuthException("the protected-resource metadata at " + candidate + " names resource \"" + named
                        + "\", which is not a URL");
            }
            if (!covers(resource, server)) {
                throw new OAuthException("the protected-resource metadata of " + display(server) + " names resource "
                        + named + ", not this server: refused before any registration, authorization or token request");
            }
            List<URI> servers = new ArrayList<>();
            for (JsonNode as : document.path("authorization_servers")) {
                try {
                    servers.add(new URI(as.asString()));
                } catch (URISyntaxException e) {
                    // skipped: not a URL
                }
            }
            return new ResourceMetadata(resource, servers, strings(document.path("scopes_supported")));
        }
        return null;
    }

    /**
     * The authorization server's metadata, from the RFC 8414 location, then the OpenID Connect
     * ones (with the issuer's path inserted, then appended); null when none answers.
     *
     * @param strictIssuer whether the document's {@code issuer} must be the URL it was found
     *                     for (RFC 8414 §3.3); a 2025-03-26 server's authorization server is its
     *                     origin by convention, not by its own word, so its issuer is taken as given
     */
    private static AuthServer authServerMetadata(OAuthHttp http, URI issuer, boolean strictIssuer)
            throws IOException, InterruptedException {
        URI origin = origin(issuer);
        String path = issuer.getRawPath() == null ? "" : issuer.getRawPath();
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        Set<URI> candidates = new LinkedHashSet<>();
        candidates.add(URI.create(origin + "/.well-known/oauth-authorization-server" + path));
        candidates.add(URI.create(origin + "/.well-known/openid-configuration" + path));
        if (!path.isEmpty()) {
            candidates.add(URI.create(origin + path + "/.well-known/openid-configuration"));
        }
        for (URI candidate : candidates) {
            OAuthHttp.Document response = http.get(candidate);
            if (response.statusCode() != 200) {
                continue;
            }
            AuthorizationServerMetadata metadata;
            try {
                metadata = AuthorizationServerMetadata.parse(response.body());
            } catch (com.nimbusds.oauth2.sdk.ParseException e) {
                continue; // not a metadata document: try the next location
            }
            String named = metadata.getIssuer().getValue();
            if (strictIssuer && !trimSlash(named).equals(trimSlash(issuer.toString()))) {
                throw new OAuthException("the authorization server metadata at " + candidate + " names issuer " + named
                        + ", not " + issuer + ": refused (RFC 8414 section 3.3)");
            }
            if (metadata.getTokenEndpointURI() == null) {
                throw new OAuthException("the authorization server " + named + " publishes no token endpoint");
            }
            requireSecure(metadata, candidate);
            List<String> methods = metadata.getTokenEndpointAuthMethods() == null ? null
                    : metadata.getTokenEndpointAuthMethods().stream().map(ClientAuthenticationMethod::getValue).toList();
            List<String> pkce = metadata.getCodeChallengeMethods() == null ? null
                    : metadata.getCodeChallengeMethods().stream().map(CodeChallengeMethod::getValue).toList();
            Object cimd = metadata.getCustomParameter("client_id_metadata_document_supported");
            return new AuthServer(named, metadata.getAuthorizationEndpointURI(), metadata.getTokenEndpointURI(),
                    metadata.getRegistrationEndpointURI(),
                    metadata.getScopes() == null ? List.of() : metadata.getScopes().toStringList(), methods,
                    Boolean.TRUE.equals(cimd), pkce, !strictIssuer);
        }
        return null;
    }

    /** Every endpoint the metadata names is HTTPS (or on loopback): checked before any of them is used. */
    private static void requireSecure(AuthorizationServerMetadata metadata, URI from) {
        String of = " of the authorization server metadata at " + from + ",";
        URI issuer;
        try {
            issuer = new URI(metadata.getIssuer().getValue());
        } catch (URISyntaxException e) {
            throw new OAuthException("the issuer" + of + " \"" + metadata.getIssuer().getValue() + "\", is not a URL");
        }
        AuthServerUrls.requireSecure(issuer, "the issuer" + of);
        if (metadata.getAuthorizationEndpointURI() != null) {
            AuthServerUrls.requireSecure(metadata.getAuthorizationEndpointURI(), "the authorization_endpoint" + of);
        }
        AuthServerUrls.requireSecure(metadata.getTokenEndpointURI(), "the token_endpoint" + of);
        if (metadata.getRegistrationEndpointURI() != null) {
            AuthServerUrls.requireSecure(metadata.getRegistrationEndpointURI(), "the registration_endpoint" + of);
        }
    }

    /** Whether the resource identifier names this server: same origin, and its path a prefix of the server's. */
    static boolean covers(URI resource, URI server) {
        if (resource.getScheme() == null || resource.getHost() == null || resource.getFragment() != null
                || !origin(resource).equals(origin(server))) {
            return false;
        }
        String prefix = trimSlash(resource.getRawPath() == null ? "" : resource.getRawPath());
        String path = trimSlash(server.getRawPath() == null ? "" : server.getRawPath());
        return prefix.isEmpty() || path.equals(prefix) || path.startsWith(prefix + "/");
    }

    static URI origin(URI uri) {
        int port = uri.getPort();
        String scheme = uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        boolean defaultPort = port == -1 || (scheme.equals("https") && port == 443) || (scheme.equals("http") && port == 80);
        return URI.create(scheme + "://" + uri.getHost().toLowerCase(java.util.Locale.ROOT) + (defaultPort ? "" : ":" + port));
    }

    static String display(URI server) {
        return server.getScheme() + "://" + server.getRawAuthority() + (server.getRawPath() == null ? "" : server.getRawPath());
    }

    private static String trimSlash(String text) {
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    private static JsonNode parse(String body, URI from) {
        try {
            JsonNode node = JSON.readTree(body);
            return node != null && node.isObject() ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode item : array) {
            if (item.isString() && !item.asString().isBlank()) {
                out.add(item.asString());
            }
        }
        return out;
    }
}
