package dev.bellows.testkit;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A real OAuth-protected MCP server on 127.0.0.1 (port 0) for the tests of what the conformance
 * suite does not cover: its own authorization server (metadata, dynamic registration, an
 * authorization endpoint that approves without a person, a token endpoint for codes with PKCE,
 * refresh tokens and client credentials) and an MCP endpoint at {@code /mcp} that wants a
 * bearer token it issued. Every request is recorded (path and Authorization header), and so is
 * every secret it hands out, for tests that look for them where they must not be.
 */
public final class OAuthMcpServer implements AutoCloseable {

    private static final ObjectMapper JSON = Jackson.JSON;

    /** One request the server received, with its W3C {@code traceparent} header (null when it had none). */
    public record Request(String method, String path, String authorization, String body, String traceparent) {
    }

    private final HttpServer server;
    private final boolean protectedMcp;
    public final List<Request> requests = new CopyOnWriteArrayList<>();
    /** Every token, code, secret and verifier this server issued or received. */
    public final Set<String> secrets = ConcurrentHashMap.newKeySet();
    private final Map<String, String> accessTokens = new ConcurrentHashMap<>();   // token -> scope
    private final Map<String, String> refreshTokens = new ConcurrentHashMap<>();  // token -> scope
    private final Map<String, String> codes = new ConcurrentHashMap<>();          // code -> challenge
    private volatile long lifetimeSeconds = 3600;
    /** What the protected-resource metadata names as the authorization server; null: this server. */
    private volatile String authorizationServer;
    /** Fields of the authorization server metadata given other values. */
    private final Map<String, String> metadataFields = new ConcurrentHashMap<>();

    private OAuthMcpServer(boolean protectedMcp) throws IOException {
        this.protectedMcp = protectedMcp;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** A server whose {@code /mcp} wants a token. */
    public static OAuthMcpServer start() throws IOException {
        return new OAuthMcpServer(true);
    }

    /** A server whose {@code /mcp} wants nothing (to see what a client sends it anyway). */
    public static OAuthMcpServer open() throws IOException {
        return new OAuthMcpServer(false);
    }

    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String mcpUrl() {
        return base() + "/mcp";
    }

    /** The {@code expires_in} of the access tokens issued from now on. */
    public void lifetime(long seconds) {
        lifetimeSeconds = seconds;
    }

    /** Has the protected-resource metadata name {@code url} as the authorization server, not this server. */
    public void authorizationServer(String url) {
        authorizationServer = url;
    }

    /** Gives a field of the authorization server metadata ({@code token_endpoint}, ...) another value. */
    public void metadataField(String name, String value) {
        metadataFields.put(name, value);
    }

    /** Forgets every access token issued: the next request with one gets 401. */
    public void revokeAccessTokens() {
        accessTokens.clear();
    }

    public List<Request> requests(String path) {
        return requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    public List<String> grants() {
        List<String> out = new ArrayList<>();
        for (Request request : requests("/token")) {
            out.add(form(request.body()).get("grant_type"));
        }
        return out;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            requests.add(new Request(exchange.getRequestMethod(), path,
                    exchange.getRequestHeaders().getFirst("Authorization"), body,
                    exchange.getRequestHeaders().getFirst("traceparent")));
            switch (path) {
                case "/.well-known/oauth-protected-resource/mcp" -> json(exchange, 200, JSON.createObjectNode()
                        .put("resource", mcpUrl())
                        .set("authorization_servers", JSON.createArrayNode()
                                .add(authorizationServer == null ? base() : authorizationServer)));
                case "/.well-known/oauth-authorization-server" -> json(exchange, 200, metadata());
                case "/register" -> register(exchange, body);
                case "/authorize" -> authorize(exchange);
                case "/token" -> token(exchange, body);
                case "/mcp" -> mcp(exchange, body);
                default -> json(exchange, 404, JSON.createObjectNode().put("error", "not_found"));
            }
        }
    }

    private ObjectNode metadata() {
        ObjectNode metadata = JSON.createObjectNode()
                .put("issuer", base())
                .put("authorization_endpoint", base() + "/authorize")
                .put("token_endpoint", base() + "/token")
                .put("registration_endpoint", base() + "/register");
        metadata.putArray("response_types_supported").add("code");
        metadata.putArray("grant_types_supported").add("authorization_code").add("refresh_token").add("client_credentials");
        metadata.putArray("code_challenge_methods_supported").add("S256");
        metadata.putArray("token_endpoint_auth_methods_supported").add("client_secret_basic").add("none");
        metadata.putArray("scopes_supported").add("mcp").add("offline_access");
        metadataFields.forEach(metadata::put);
        return metadata;
    }

    private void register(HttpExchange exchange, String body) throws IOException {
        String secret = "client-secret-" + UUID.randomUUID();
        secrets.add(secret);
        JsonNode request = JSON.readTree(body);
        ObjectNode answer = JSON.createObjectNode()
                .put("client_id", "client-" + UUID.randomUUID())
                .put("client_secret", secret)
                .put("token_endpoint_auth_method", "client_secret_basic");
        answer.set("redirect_uris", request.path("redirect_uris"));
        json(exchange, 201, answer);
    }

    private void authorize(HttpExchange exchange) throws IOException {
        Map<String, String> query = form(exchange.getRequestURI().getRawQuery());
        String code = "code-" + UUID.randomUUID();
        secrets.add(code);
        codes.put(code, query.getOrDefault("code_challenge", "") + " " + query.getOrDefault("scope", ""));
        String location = query.get("redirect_uri") + "?code=" + code + "&state="
                + java.net.URLEncoder.encode(query.getOrDefault("state", ""), StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Location", location);
        exchange.sendResponseHeaders(302, -1);
    }

    private void token(HttpExchange exchange, String body) throws IOException {
        Map<String, String> form = form(body);
        String scope;
        switch (form.getOrDefault("grant_type", "")) {
            case "authorization_code" -> {
                secrets.add(form.getOrDefault("code_verifier", ""));
                String stored = codes.remove(form.getOrDefault("code", ""));
                if (stored == null || !stored.split(" ", 2)[0].equals(challenge(form.getOrDefault("code_verifier", "")))) {
                    json(exchange, 400, JSON.createObjectNode().put("error", "invalid_grant"));
                    return;
                }
                scope = stored.split(" ", 2)[1];
            }
            case "refresh_token" -> {
                scope = refreshTokens.remove(form.getOrDefault("refresh_token", ""));
                if (scope == null) {
                    json(exchange, 400, JSON.createObjectNode().put("error", "invalid_grant"));
                    return;
                }
            }
            case "client_credentials" -> scope = form.getOrDefault("scope", "");
            default -> {
                json(exchange, 400, JSON.createObjectNode().put("error", "unsupported_grant_type"));
                return;
            }
        }
        String access = "access-" + UUID.randomUUID();
        String refresh = "refresh-" + UUID.randomUUID();
        secrets.add(access);
        secrets.add(refresh);
        accessTokens.put(access, scope);
        refreshTokens.put(refresh, scope);
        json(exchange, 200, JSON.createObjectNode()
                .put("access_token", access)
                .put("token_type", "Bearer")
                .put("expires_in", lifetimeSeconds)
                .put("refresh_token", refresh)
                .put("scope", scope));
    }

    private void mcp(HttpExchange exchange, String body) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (protectedMcp && (authorization == null || !authorization.startsWith("Bearer ")
                || !accessTokens.containsKey(authorization.substring(7)))) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer error=\"invalid_token\", resource_metadata=\""
                    + base() + "/.well-known/oauth-protected-resource/mcp\"");
            json(exchange, 401, JSON.createObjectNode().put("error", "invalid_token"));
            return;
        }
        if (!exchange.getRequestMethod().equals("POST")) {
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        JsonNode message = JSON.readTree(body);
        if (!message.has("id")) {
            exchange.sendResponseHeaders(202, -1);
            return;
        }
        ObjectNode result = JSON.createObjectNode();
        switch (message.path("method").asString()) {
            case "initialize" -> {
                result.put("protocolVersion", message.path("params").path("protocolVersion").asString());
                result.putObject("capabilities").putObject("tools");
                result.putObject("serverInfo").put("name", "oauth-test").put("version", "1");
            }
            case "tools/list" -> {
                ObjectNode tool = result.putArray("tools").addObject().put("name", "whoami");
                tool.putObject("inputSchema").put("type", "object");
            }
            case "tools/call" -> result.putArray("content").addObject().put("type", "text").put("text", "called");
            default -> {
            }
        }
        ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
        response.set("id", message.get("id"));
        response.set("result", result);
        json(exchange, 200, response);
    }

    private static String challenge(String verifier) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void json(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    public static Map<String, String> form(String text) {
        Map<String, String> out = new HashMap<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return Collections.unmodifiableMap(out);
    }

    public URI uri() {
        return URI.create(mcpUrl());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
