package dev.bellows.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --config} file of {@code bellows run}: a JSON object whose keys mirror the long
 * options with underscores ({@code "base_url"} for {@code --base-url}), plus
 * {@code "mcpServers"} in the common MCP format. Unknown keys and values of the wrong type
 * are errors naming the file and the key, so a typo never silently falls back to a default.
 * Values are never repeated in messages: the file may hold an API key.
 */
final class ConfigFile {

    enum Type { STRING, INTEGER }

    /** The keys a config file may have, with their types; {@code mcpServers} is checked apart. */
    static final Map<String, Type> KEYS = keys();

    static final String MCP_SERVERS = "mcpServers";

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final Set<String> SERVER_KEYS =
            Set.of("command", "args", "env", "cwd", "url", "headers", "type", "disabled");

    /** How the file is named in messages: as the user gave it. */
    final String label;
    final Path directory;
    private final Map<String, JsonNode> values;

    private ConfigFile(String label, Path directory, Map<String, JsonNode> values) {
        this.label = label;
        this.directory = directory;
        this.values = values;
    }

    /** No file: every value absent. */
    static ConfigFile none(Path workingDirectory) {
        return new ConfigFile("(no config file)", workingDirectory, Map.of());
    }

    private static Map<String, Type> keys() {
        Map<String, Type> keys = new LinkedHashMap<>();
        for (String key : new String[] {"provider", "base_url", "api_key", "model", "output", "system", "agent",
                "mcp_config"}) {
            keys.put(key, Type.STRING);
        }
        for (String key : new String[] {"max_iterations", "max_consecutive_errors", "max_retries", "timeout_seconds",
                "max_context_tokens"}) {
            keys.put(key, Type.INTEGER);
        }
        return Map.copyOf(keys);
    }

    /**
     * Reads and checks the file.
     *
     * @param label how the file is named in messages, e.g. {@code --config conf.json}
     */
    static ConfigFile read(Path file, String label) throws UsageException {
        JsonNode root = readJson(file, label);
        if (!root.isObject()) {
            throw new UsageException(label + ": expected a JSON object of settings, e.g. {\"model\": \"llama3.2\"}");
        }
        Map<String, JsonNode> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (key.equals(MCP_SERVERS)) {
                checkServers(value, label + ": " + MCP_SERVERS);
            } else if (!KEYS.containsKey(key)) {
                throw new UsageException(label + ": unknown key \"" + key + "\" (known: "
                        + String.join(", ", KEYS.keySet().stream().sorted().toList()) + ", " + MCP_SERVERS + ")");
            } else if (value.isNull()) {
                continue; // null: as if absent
            } else if (KEYS.get(key) == Type.STRING && !value.isTextual()) {
                throw new UsageException(label + ": \"" + key + "\" must be a string, not " + kind(value));
            } else if (KEYS.get(key) == Type.INTEGER && value.isIntegralNumber() && !value.canConvertToInt()) {
                throw new UsageException(label + ": \"" + key + "\" is too large");
            } else if (KEYS.get(key) == Type.INTEGER && !value.isIntegralNumber()) {
                throw new UsageException(label + ": \"" + key + "\" must be a whole number, not " + kind(value));
            }
            values.put(key, value);
        }
        Path parent = file.toAbsolutePath().getParent();
        return new ConfigFile(label, parent, values);
    }

    /** The string value, or null when absent. */
    String string(String key) {
        JsonNode value = values.get(key);
        return value == null ? null : value.asText();
    }

    /** The integer value, or null when absent. */
    Integer integer(String key) {
        JsonNode value = values.get(key);
        return value == null ? null : value.intValue();
    }

    /** Whether the file has {@code key} (for {@code mcpServers}: with at least one server). */
    boolean hasServers() {
        JsonNode servers = values.get(MCP_SERVERS);
        return servers != null && servers.isObject() && !servers.isEmpty();
    }

    /** Where a key's value came from, for messages: {@code bellows.json: "model"}. */
    String source(String key) {
        return label + ": \"" + key + "\"";
    }

    /**
     * Reads an {@code --mcp-config} file: a JSON object with {@code mcpServers} (other
     * top-level keys are left alone, so a Claude Desktop config file works as it is).
     *
     * @return the number of servers it defines
     */
    static int readMcpConfig(Path file, String label) throws UsageException {
        JsonNode root = readJson(file, label);
        if (!root.isObject() || !root.has(MCP_SERVERS)) {
            throw new UsageException(label + ": expected a JSON object with \"" + MCP_SERVERS
                    + "\", e.g. {\"mcpServers\": {\"name\": {\"command\": \"npx\", \"args\": [...]}}}");
        }
        JsonNode servers = root.get(MCP_SERVERS);
        checkServers(servers, label + ": " + MCP_SERVERS);
        return servers.size();
    }

    /** The common format: {@code {"name": {"command": ..., "args": [...], "env": {...}} | {"url": ..., "headers": {...}}}}. */
    static void checkServers(JsonNode servers, String where) throws UsageException {
        if (!servers.isObject()) {
            throw new UsageException(where + " must be an object of servers by name, not " + kind(servers));
        }
        for (Map.Entry<String, JsonNode> entry : servers.properties()) {
            String at = where + "." + entry.getKey();
            JsonNode server = entry.getValue();
            if (!server.isObject()) {
                throw new UsageException(at + " must be an object with \"command\" or \"url\", not " + kind(server));
            }
            for (Map.Entry<String, JsonNode> field : server.properties()) {
                if (!SERVER_KEYS.contains(field.getKey())) {
                    throw new UsageException(at + ": unknown key \"" + field.getKey() + "\" (known: "
                            + String.join(", ", SERVER_KEYS.stream().sorted().toList()) + ")");
                }
            }
            boolean command = server.has("command");
            boolean url = server.has("url");
            if (command == url) {
                throw new UsageException(at + " must have exactly one of \"command\" (a local server) and \"url\" (a remote one)");
            }
            requireText(server, "command", at);
            requireText(server, "url", at);
            requireText(server, "cwd", at);
            requireText(server, "type", at);
            if (server.has("disabled") && !server.get("disabled").isBoolean()) {
                throw new UsageException(at + ": \"disabled\" must be true or false, not " + kind(server.get("disabled")));
            }
            if (server.has("args")) {
                JsonNode args = server.get("args");
                if (!args.isArray()) {
                    throw new UsageException(at + ": \"args\" must be an array of strings, not " + kind(args));
                }
                for (JsonNode arg : args) {
                    if (!arg.isTextual()) {
                        throw new UsageException(at + ": \"args\" must be an array of strings, it holds " + kind(arg));
                    }
                }
            }
            for (String map : new String[] {"env", "headers"}) {
                if (server.has(map)) {
                    JsonNode object = server.get(map);
                    if (!object.isObject()) {
                        throw new UsageException(at + ": \"" + map + "\" must be an object of strings, not " + kind(object));
                    }
                    for (Map.Entry<String, JsonNode> field : object.properties()) {
                        if (!field.getValue().isTextual()) {
                            throw new UsageException(at + ": \"" + map + "\"." + field.getKey() + " must be a string, not "
                                    + kind(field.getValue()));
                        }
                    }
                }
            }
        }
    }

    private static void requireText(JsonNode server, String key, String at) throws UsageException {
        if (server.has(key) && !server.get(key).isTextual()) {
            throw new UsageException(at + ": \"" + key + "\" must be a string, not " + kind(server.get(key)));
        }
    }

    private static JsonNode readJson(Path file, String label) throws UsageException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException(label + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException(label + ": permission denied");
        } catch (IOException e) {
            throw new UsageException(label + ": cannot read it: "
                    + (Files.isDirectory(file) ? "it is a directory" : BellowsCommand.oneLine(e.getMessage())));
        }
        try {
            JsonNode root = MAPPER.readTree(text);
            if (root == null || root.isMissingNode()) {
                throw new UsageException(label + ": the file is empty; expected a JSON object");
            }
            return root;
        } catch (JsonProcessingException e) {
            // What is wrong in plain words and where, never Jackson's wording, and no excerpt of
            // the content: it may be a secret.
            throw new UsageException(label + ": invalid JSON: " + dev.bellows.stream.JsonSyntax.problem(text)
                    .orElse("it cannot be read"));
        }
    }

    private static String kind(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> value.isIntegralNumber() ? "a number" : "a decimal number";
            case BOOLEAN -> "true/false";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> "a " + value.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
