package dev.bellows.mcp;

import tools.jackson.databind.ObjectReader;
import tools.jackson.core.StreamReadFeature;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import dev.bellows.mcp.auth.OAuthConfig;
import dev.bellows.mcp.auth.OAuthSecret;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the common {@code mcpServers} format, the one Claude Desktop and most MCP clients use:
 *
 * <pre>{@code
 * {"mcpServers": {
 *   "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
 *                  "env": {"LOG_LEVEL": "warn"}, "cwd": "/tmp"},
 *   "remote": {"url": "http://127.0.0.1:8931/mcp", "headers": {"Authorization": "Bearer ..."}}
 * }}
 * }</pre>
 *
 * <p>A server has exactly one of {@code command} (a local process over stdio: {@code args},
 * {@code env}, {@code cwd}) and {@code url} (Streamable HTTP: {@code headers}). Also accepted:
 * {@code "type"} ({@code "stdio"}, {@code "http"} or {@code "streamable-http"}; the deprecated
 * {@code "sse"} transport is refused), {@code "disabled": true} (the server is left out),
 * {@code "startupTimeoutSeconds"} / {@code "callTimeoutSeconds"} (positive whole numbers), and the
 * {@link RestartPolicy}: {@code "startAttempts"} (a positive whole number; 1 never starts a failed
 * server again), {@code "retryDelaySeconds"} and {@code "maxRetryDelaySeconds"} (positive numbers,
 * fractions allowed), {@code "maxMessageMiB"} (a whole number from 1 to 1024: the most MiB of one
 * message from the server, see {@link McpServerConfig#maxMessageBytes()}). A {@code url} server may have {@code "oauth"}: what cannot be discovered
 * about its authorization ({@code clientId}, {@code clientSecret}, {@code clientMetadataUrl},
 * {@code scopes}, {@code callbackPort}, {@code grantType}, {@code privateKeyFile},
 * {@code signingAlgorithm}, {@code idp}: see {@link OAuthConfig}); its paths are resolved
 * against the file's folder, {@code ~/} against the home folder.
 * Anything else is an error naming the server and the key; values never appear in messages.
 */
public final class McpConfig {

    /** The top-level key. */
    public static final String MCP_SERVERS = "mcpServers";

    private static final Set<String> KEYS = Set.of("command", "args", "env", "cwd", "url", "headers", "type",
            "disabled", "startupTimeoutSeconds", "callTimeoutSeconds", "startAttempts", "retryDelaySeconds",
            "maxRetryDelaySeconds", "oauth", "maxMessageMiB");
    private static final Set<String> OAUTH_KEYS = Set.of("clientId", "clientSecret", "clientMetadataUrl", "scopes",
            "callbackPort", "grantType", "privateKeyFile", "signingAlgorithm", "idp");
    private static final Set<String> IDP_KEYS = Set.of("tokenEndpoint", "clientId", "idTokenFile");

    private static final ObjectReader MAPPER = Jackson.JSON.reader()
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private McpConfig() {
    }

    /**
     * Parses a whole document: a JSON object with {@code mcpServers} (other top-level keys are
     * left alone, so a Claude Desktop config file works as it is).
     *
     * @param json      the document
     * @param label     how the document is named in messages ({@code --mcp-config servers.json})
     * @param directory where relative {@code cwd} values are resolved (the file's folder)
     * @throws McpConfigException when it is not valid
     */
    public static List<McpServerConfig> parse(String json, String label, Path directory) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JacksonException e) {
            var location = e.getLocation();
            throw new McpConfigException(label + ": invalid JSON"
                    + (location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr()));
        }
        if (root == null || !root.isObject() || !root.has(MCP_SERVERS)) {
            throw new McpConfigException(label + ": expected a JSON object with \"" + MCP_SERVERS
                    + "\", e.g. {\"mcpServers\": {\"name\": {\"command\": \"npx\", \"args\": [...]}}}");
        }
        return servers(root.get(MCP_SERVERS), label + ": " + MCP_SERVERS, directory);
    }

    /**
     * Parses the value of {@code mcpServers}: an object of servers by name. Disabled servers are
     * left out.
     *
     * @param where how the value is named in messages ({@code bellows.json: mcpServers})
     * @throws McpConfigException when it is not valid
     */
    public static List<McpServerConfig> servers(JsonNode servers, String where, Path directory) {
        if (servers == null || !servers.isObject()) {
            throw new McpConfigException(where + " must be an object of servers by name, not " + kind(servers));
        }
        List<McpServerConfig> configs = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : servers.properties()) {
            McpServerConfig config = server(entry.getKey(), entry.getValue(), where + "." + entry.getKey(), directory);
            if (config != null) {
                configs.add(config);
            }
        }
        return List.copyOf(configs);
    }

    private static McpServerConfig server(String name, JsonNode server, String at, Path directory) {
        if (!server.isObject()) {
            throw new McpConfigException(at + " must be an object with \"command\" or \"url\", not " + kind(server));
        }
        for (Map.Entry<String, JsonNode> field : server.properties()) {
            if (!KEYS.contains(field.getKey())) {
                throw new McpConfigException(at + ": unknown key \"" + field.getKey() + "\" (known: "
                        + String.join(", ", KEYS.stream().sorted().toList()) + ")");
            }
        }
        if (server.has("disabled")) {
            if (!server.get("disabled").isBoolean()) {
                throw new McpConfigException(at + ": \"disabled\" must be true or false, not " + kind(server.get("disabled")));
            }
            if (server.get("disabled").booleanValue()) {
                return null;
            }
        }
        boolean command = server.has("command");
        boolean url = server.has("url");
        if (command == url) {
            throw new McpConfigException(at + " must have exactly one of \"command\" (a local server) and \"url\" "
                    + "(a remote one)");
        }
        String type = text(server, "type", at);
        if (type != null) {
            String normal = type.toLowerCase(Locale.ROOT);
            if (normal.equals("sse")) {
                throw new McpConfigException(at + ": \"type\" \"sse\" (the deprecated HTTP+SSE transport) is not "
                        + "supported; use the server's Streamable HTTP endpoint (\"type\": \"http\")");
            }
            boolean http = normal.equals("http") || normal.equals("streamable-http") || normal.equals("streamablehttp");
            if (!http && !normal.equals("stdio")) {
                throw new McpConfigException(at + ": unknown \"type\" (stdio, http or streamable-http)");
            }
            if (http != url) {
                throw new McpConfigException(at + ": \"type\" says " + (http ? "http" : "stdio") + " but the server has "
                        + (url ? "a \"url\"" : "a \"command\""));
            }
        }
        Duration startup = seconds(server, "startupTimeoutSeconds", at, McpServerConfig.DEFAULT_STARTUP_TIMEOUT);
        Duration call = seconds(server, "callTimeoutSeconds", at, McpServerConfig.DEFAULT_CALL_TIMEOUT);
        RestartPolicy restart = restart(server, at);
        int maxMessageBytes = mebibytes(server, "maxMessageMiB", at, McpServerConfig.DEFAULT_MAX_MESSAGE_BYTES);
        try {
            if (command) {
                forbid(server, at, "headers", "\"headers\" belong to a server with a \"url\"");
                forbid(server, at, "oauth", "\"oauth\" belongs to a server with a \"url\" (a local server needs no login)");
                String program = text(server, "command", at);
                if (program.isBlank()) {
                    throw new McpConfigException(at + ": \"command\" is empty");
                }
                McpServerConfig.StdioBuilder builder = McpServerConfig.stdio(name, program)
                        .args(strings(server, "args", at))
                        .env(map(server, "env", at))
                        .startupTimeout(startup)
                        .callTimeout(call)
                        .restart(restart)
                        .maxMessageBytes(maxMessageBytes);
                String cwd = text(server, "cwd", at);
                if (cwd != null) {
                    builder.workingDirectory(directory == null ? Path.of(cwd) : directory.resolve(cwd));
                }
                return builder.build();
            }
            for (String key : List.of("args", "env", "cwd")) {
                forbid(server, at, key, "\"" + key + "\" belongs to a server with a \"command\"");
            }
            McpServerConfig.HttpBuilder http = McpServerConfig.http(name, text(server, "url", at));
            if (server.has("oauth") && !server.get("oauth").isNull()) {
                http.oauth(oauth(server.get("oauth"), at + ".oauth", directory));
            }
            return http
                    .headers(map(server, "headers", at))
                    .startupTimeout(startup)
                    .callTimeout(call)
                    .restart(restart)
                    .maxMessageBytes(maxMessageBytes)
                    .build();
        } catch (McpConfigException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new McpConfigException(at + ": " + e.getMessage());
        }
    }

    /** The {@code "oauth"} object of a {@code url} server. */
    private static OAuthConfig oauth(JsonNode oauth, String at, Path directory) {
        if (!oauth.isObject()) {
            throw new McpConfigException(at + " must be an object, not " + kind(oauth));
        }
        known(oauth, at, OAUTH_KEYS);
        String grant = text(oauth, "grantType", at);
        OAuthConfig.GrantType grantType = OAuthConfig.GrantType.AUTHORIZATION_CODE;
        if (grant != null) {
            grantType = OAuthConfig.GrantType.named(grant);
            if (grantType == null) {
                throw new McpConfigException(at + ": unknown \"grantType\" (authorization_code, client_credentials or "
                        + "jwt_bearer)");
            }
        }
        List<String> scopes = null;
        JsonNode scopeNode = oauth.get("scopes");
        if (scopeNode != null && !scopeNode.isNull()) {
            if (scopeNode.isString()) {
                scopes = List.of(scopeNode.stringValue(null).trim().split("\\s+"));
                if (scopeNode.stringValue(null).isBlank()) {
                    scopes = List.of();
                }
            } else {
                scopes = strings(oauth, "scopes", at);
            }
        }
        int port = 0;
        JsonNode portNode = oauth.get("callbackPort");
        if (portNode != null && !portNode.isNull()) {
            if (!portNode.isIntegralNumber() || !portNode.canConvertToInt() || portNode.intValue() < 1
                    || portNode.intValue() > 65_535) {
                throw new McpConfigException(at + ": \"callbackPort\" must be a port number (1 to 65535)");
            }
            port = portNode.intValue();
        }
        String secret = text(oauth, "clientSecret", at);
        String key = text(oauth, "privateKeyFile", at);
        OAuthConfig.Idp idp = null;
        JsonNode idpNode = oauth.get("idp");
        if (idpNode != null && !idpNode.isNull()) {
            if (!idpNode.isObject()) {
                throw new McpConfigException(at + ".idp must be an object, not " + kind(idpNode));
            }
            known(idpNode, at + ".idp", IDP_KEYS);
            String endpoint = required(idpNode, "tokenEndpoint", at + ".idp");
            String idpClient = required(idpNode, "clientId", at + ".idp");
            String tokenFile = required(idpNode, "idTokenFile", at + ".idp");
            idp = new OAuthConfig.Idp(url(endpoint, at + ".idp", "tokenEndpoint"), idpClient, path(tokenFile, directory));
        }
        String metadataUrl = text(oauth, "clientMetadataUrl", at);
        try {
            return new OAuthConfig(text(oauth, "clientId", at), secret == null ? null : OAuthSecret.of(secret),
                    metadataUrl == null ? null : url(metadataUrl, at, "clientMetadataUrl"), scopes, port, grantType,
                    key == null ? null : path(key, directory), text(oauth, "signingAlgorithm", at), idp);
        } catch (IllegalArgumentException e) {
            throw new McpConfigException(at + ": " + e.getMessage());
        }
    }

    private static void known(JsonNode object, String at, Set<String> keys) {
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            if (!keys.contains(field.getKey())) {
                throw new McpConfigException(at + ": unknown key \"" + field.getKey() + "\" (known: "
                        + String.join(", ", keys.stream().sorted().toList()) + ")");
            }
        }
    }

    private static String required(JsonNode object, String key, String at) {
        String value = text(object, key, at);
        if (value == null || value.isBlank()) {
            throw new McpConfigException(at + ": \"" + key + "\" is missing");
        }
        return value;
    }

    private static URI url(String value, String at, String key) {
        try {
            URI uri = new URI(value);
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null) {
                throw new McpConfigException(at + ": \"" + key + "\" must be an http:// or https:// URL");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new McpConfigException(at + ": \"" + key + "\" is not a valid URL");
        }
    }

    /** A path from the configuration: {@code ~/} from the home folder, a relative one from the file's folder. */
    private static Path path(String value, Path directory) {
        if (value.equals("~") || value.startsWith("~/")) {
            return Path.of(System.getProperty("user.home")).resolve(value.length() <= 2 ? "" : value.substring(2));
        }
        return directory == null ? Path.of(value) : directory.resolve(value);
    }

    private static void forbid(JsonNode server, String at, String key, String why) {
        if (server.has(key)) {
            throw new McpConfigException(at + ": " + why);
        }
    }

    private static String text(JsonNode server, String key, String at) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new McpConfigException(at + ": \"" + key + "\" must be a string, not " + kind(value));
        }
        return value.stringValue(null);
    }

    private static List<String> strings(JsonNode server, String key, String at) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new McpConfigException(at + ": \"" + key + "\" must be an array of strings, not " + kind(value));
        }
        List<String> strings = new ArrayList<>();
        for (JsonNode item : value) {
            if (!item.isString()) {
                throw new McpConfigException(at + ": \"" + key + "\" must be an array of strings; item "
                        + (strings.size() + 1) + " is " + kind(item));
            }
            strings.add(item.stringValue(null));
        }
        return strings;
    }

    private static Map<String, String> map(JsonNode server, String key, String at) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return Map.of();
        }
        if (!value.isObject()) {
            throw new McpConfigException(at + ": \"" + key + "\" must be an object of strings, not " + kind(value));
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : value.properties()) {
            if (!field.getValue().isString()) {
                throw new McpConfigException(at + ": \"" + key + "\"." + field.getKey() + " must be a string, not "
                        + kind(field.getValue()));
            }
            map.put(field.getKey(), field.getValue().stringValue(null));
        }
        return map;
    }

    private static Duration seconds(JsonNode server, String key, String at, Duration fallback) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1) {
            throw new McpConfigException(at + ": \"" + key + "\" must be a whole number of seconds of at least 1");
        }
        return Duration.ofSeconds(value.intValue());
    }

    private static int mebibytes(JsonNode server, String key, String at, int fallback) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1 || value.intValue() > 1024) {
            throw new McpConfigException(at + ": \"" + key + "\" must be a whole number of MiB from 1 to 1024");
        }
        return value.intValue() << 20;
    }

    private static RestartPolicy restart(JsonNode server, String at) {
        RestartPolicy defaults = RestartPolicy.DEFAULT;
        int attempts = defaults.maxAttempts();
        JsonNode value = server.get("startAttempts");
        if (value != null && !value.isNull()) {
            if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1) {
                throw new McpConfigException(at + ": \"startAttempts\" must be a whole number of at least 1");
            }
            attempts = value.intValue();
        }
        Duration first = fraction(server, "retryDelaySeconds", at, defaults.firstDelay());
        Duration max = fraction(server, "maxRetryDelaySeconds", at, null);
        if (max == null) {
            max = first.compareTo(defaults.maxDelay()) > 0 ? first : defaults.maxDelay();
        } else if (max.compareTo(first) < 0) {
            throw new McpConfigException(at + ": \"maxRetryDelaySeconds\" must be at least \"retryDelaySeconds\"");
        }
        return new RestartPolicy(attempts, first, max);
    }

    /** A positive number of seconds, fractions allowed, up to a day (to the millisecond). */
    private static Duration fraction(JsonNode server, String key, String at, Duration fallback) {
        JsonNode value = server.get(key);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isNumber() || !(value.doubleValue() >= 0.001) || value.doubleValue() > 86_400) {
            throw new McpConfigException(at + ": \"" + key + "\" must be a number of seconds between 0.001 and 86400");
        }
        return Duration.ofMillis(Math.round(value.doubleValue() * 1000));
    }

    static String kind(JsonNode value) {
        if (value == null) {
            return "missing";
        }
        return switch (value.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "true/false";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> "a " + value.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }
}
