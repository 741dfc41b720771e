package dev.bellows.cli;

import tools.jackson.databind.ObjectReader;
import tools.jackson.core.StreamReadFeature;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import dev.bellows.mcp.McpConfig;
import dev.bellows.mcp.McpConfigException;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.a2a.client.RemoteAgentConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code --config} file of {@code bellows run}: a JSON object whose keys mirror the long
 * options with underscores ({@code "base_url"} for {@code --base-url}), plus
 * {@code "mcpServers"} in the common MCP format. Unknown keys and values of the wrong type
 * are errors naming the file and the key, so a typo never silently falls back to a default.
 * Values are never repeated in messages: the file may hold an API key.
 */
final class ConfigFile {

    enum Type { STRING, INTEGER, STRINGS }

    /** The keys a config file may have, with their types; {@code mcpServers} is checked apart. */
    static final Map<String, Type> KEYS = keys();

    static final String MCP_SERVERS = "mcpServers";

    /** Remote A2A agents by name, checked by bellows-a2a's {@link RemoteAgentConfig}. */
    static final String A2A = "a2a";

    /** The agents by name (cli.md, "Agents that work together"), checked apart like {@code mcpServers}. */
    static final String AGENTS = "agents";

    /** The models' prices, for {@code bellows eval}'s costs (docs/eval.md), checked apart. */
    static final String PRICES = "prices";

    private static final ObjectReader MAPPER = Jackson.JSON.reader()
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** How the file is named in messages: as the user gave it. */
    final String label;
    final Path directory;
    private final Map<String, JsonNode> values;
    private final List<McpServerConfig> servers;
    private final List<RemoteAgentConfig> remoteAgents;
    private final AgentsConfig agents;
    private Map<String, dev.bellows.eval.Price> prices = Map.of();

    private ConfigFile(String label, Path directory, Map<String, JsonNode> values, List<McpServerConfig> servers,
                       List<RemoteAgentConfig> remoteAgents, AgentsConfig agents) {
        this.label = label;
        this.directory = directory;
        this.values = values;
        this.servers = servers;
        this.remoteAgents = remoteAgents;
        this.agents = agents;
    }

    /**
     * The config file a command uses: {@code --config FILE}, else {@code BELLOWS_CONFIG}, else
     * {@code bellows.json} in the working directory if present, else none.
     */
    static ConfigFile locate(Host host, String flag) throws UsageException {
        if (flag != null) {
            return read(host.workingDirectory().resolve(flag), "--config " + flag);
        }
        String fromEnv = host.envValue("BELLOWS_CONFIG");
        if (fromEnv != null) {
            return read(host.workingDirectory().resolve(fromEnv), "BELLOWS_CONFIG " + fromEnv);
        }
        Path local = host.workingDirectory().resolve("bellows.json");
        if (Files.exists(local)) {
            return read(local, "bellows.json");
        }
        return none(host.workingDirectory());
    }

    /** No file: every value absent. */
    static ConfigFile none(Path workingDirectory) {
        return new ConfigFile("(no config file)", workingDirectory, Map.of(), List.of(), List.of(), AgentsConfig.NONE);
    }

    private static Map<String, Type> keys() {
        Map<String, Type> keys = new LinkedHashMap<>();
        for (String key : new String[] {"provider", "base_url", "api_key", "model", "output", "system", "agent",
                "mcp_config", "tool_mode", "output_schema", "dialect", "data_dir", SessionStoreLocation.CONFIG_KEY,
                Elicitations.CONFIG_KEY}) {
            keys.put(key, Type.STRING);
        }
        for (String key : new String[] {"max_iterations", "max_consecutive_errors", "max_retries", "timeout_seconds",
                "max_context_tokens", "max_tool_result_tokens", "thinking_budget"}) {
            keys.put(key, Type.INTEGER);
        }
        keys.put("approve", Type.STRINGS);
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
        Path parent = file.toAbsolutePath().getParent();
        List<McpServerConfig> servers = List.of();
        List<RemoteAgentConfig> remoteAgents = List.of();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (key.equals(MCP_SERVERS)) {
                servers = mcpServers(value, label + ": " + MCP_SERVERS, parent);
            } else if (key.equals(A2A)) {
                try {
                    remoteAgents = RemoteAgentConfig.parse(value, label + ": " + A2A);
                } catch (IllegalArgumentException e) {
                    throw new UsageException(e.getMessage());
                }
            } else if (key.equals(AGENTS)) {
                continue;   // read below, once the servers it may name are known
            } else if (key.equals(PRICES)) {
                continue;   // read below
            } else if (!KEYS.containsKey(key)) {
                throw new UsageException(label + ": unknown key \"" + key + "\" (known: "
                        + String.join(", ", KEYS.keySet().stream().sorted().toList()) + ", " + A2A + ", " + AGENTS + ", "
                        + MCP_SERVERS + ", " + PRICES + ")");
            } else if (value.isNull()) {
                continue; // null: as if absent
            } else if (KEYS.get(key) == Type.STRING && !value.isString()) {
                throw new UsageException(label + ": \"" + key + "\" must be a string, not " + kind(value));
            } else if (KEYS.get(key) == Type.INTEGER && value.isIntegralNumber() && !value.canConvertToInt()) {
                throw new UsageException(label + ": \"" + key + "\" is too large");
            } else if (KEYS.get(key) == Type.INTEGER && !value.isIntegralNumber()) {
                throw new UsageException(label + ": \"" + key + "\" must be a whole number, not " + kind(value));
            } else if (KEYS.get(key) == Type.STRINGS) {
                if (!value.isArray()) {
                    throw new UsageException(label + ": \"" + key + "\" must be an array of strings, not " + kind(value));
                }
                for (JsonNode item : value) {
                    if (!item.isString()) {
                        throw new UsageException(label + ": \"" + key + "\" must be an array of strings, not one"
                                + " holding " + kind(item));
                    }
                }
            }
            values.put(key, value);
        }
        java.util.Set<String> serverNames = new java.util.HashSet<>();
        for (McpServerConfig server : servers) {
            serverNames.add(server.name());
        }
        AgentsConfig agents = root.has(AGENTS) && !root.get(AGENTS).isNull()
                ? AgentsConfig.read(root.get(AGENTS), label, serverNames, remoteAgents)
                : AgentsConfig.remoteOnly(remoteAgents);
        ConfigFile config = new ConfigFile(label, parent, values, servers, remoteAgents, agents);
        if (root.has(PRICES) && !root.get(PRICES).isNull()) {
            try {
                config.prices = dev.bellows.eval.Price.read(root.get(PRICES));
            } catch (IllegalArgumentException e) {
                throw new UsageException(label + ": " + PRICES + ": " + e.getMessage());
            }
        }
        return config;
    }

    /** The models' prices of its {@code "prices"}, by model name; empty when absent. */
    Map<String, dev.bellows.eval.Price> prices() {
        return prices;
    }

    /** The agents of its {@code "agents"}, checked; none when absent. */
    AgentsConfig agents() {
        return agents;
    }

    /** The string value, or null when absent. */
    String string(String key) {
        JsonNode value = values.get(key);
        return value == null ? null : value.asString();
    }

    /** The strings of an array value, or null when absent. */
    List<String> strings(String key) {
        JsonNode value = values.get(key);
        if (value == null) {
            return null;
        }
        List<String> strings = new java.util.ArrayList<>();
        value.forEach(item -> strings.add(item.asString()));
        return List.copyOf(strings);
    }

    /** The integer value, or null when absent. */
    Integer integer(String key) {
        JsonNode value = values.get(key);
        return value == null ? null : value.intValue();
    }

    /** The MCP servers of its {@code mcpServers} (disabled ones left out). */
    List<McpServerConfig> servers() {
        return servers;
    }

    /** The remote A2A agents of its {@code a2a} object, in the order written. */
    List<RemoteAgentConfig> remoteAgents() {
        return remoteAgents;
    }

    /** Where a key's value came from, for messages: {@code bellows.json: "model"}. */
    String source(String key) {
        return label + ": \"" + key + "\"";
    }

    /**
     * Reads an {@code --mcp-config} file: a JSON object with {@code mcpServers} (other
     * top-level keys are left alone, so a Claude Desktop config file works as it is).
     * Relative {@code cwd} values are resolved against the file's folder.
     */
    static List<McpServerConfig> readMcpConfig(Path file, String label) throws UsageException {
        JsonNode root = readJson(file, label);
        if (!root.isObject() || !root.has(MCP_SERVERS)) {
            throw new UsageException(label + ": expected a JSON object with \"" + MCP_SERVERS
                    + "\", e.g. {\"mcpServers\": {\"name\": {\"command\": \"npx\", \"args\": [...]}}}");
        }
        return mcpServers(root.get(MCP_SERVERS), label + ": " + MCP_SERVERS, file.toAbsolutePath().getParent());
    }

    /** The common format, checked by bellows-mcp; its messages name the server and key, never a value. */
    private static List<McpServerConfig> mcpServers(JsonNode servers, String where, Path directory)
            throws UsageException {
        try {
            return McpConfig.servers(servers, where, directory);
        } catch (McpConfigException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** A JSON Schema file ({@code --output-schema}): one JSON object. */
    static tools.jackson.databind.node.ObjectNode readSchema(Path file, String label) throws UsageException {
        JsonNode root = readJson(file, label);
        if (!(root instanceof tools.jackson.databind.node.ObjectNode schema)) {
            throw new UsageException(label + ": expected a JSON Schema object, not " + kind(root));
        }
        try {
            dev.bellows.tool.ArgumentSchema.compile(schema);   // a broken schema is the user's to fix, not a failed run
        } catch (dev.bellows.tool.InvalidSchemaException e) {
            throw new UsageException(label + ": " + e.getMessage().replaceFirst("^the tool's JSON Schema is ", ""));
        }
        return schema;
    }

    private static JsonNode readJson(Path file, String label) throws UsageException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException(label + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException(label + ": permission denied");
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new UsageException(label + ": " + UsageErrors.NOT_UTF8);
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
        } catch (JacksonException e) {
            // What is wrong in plain words and where, never Jackson's wording, and no excerpt of
            // the content: it may be a secret.
            throw new UsageException(label + ": invalid JSON: " + dev.bellows.stream.internal.JsonSyntax.problem(text)
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
