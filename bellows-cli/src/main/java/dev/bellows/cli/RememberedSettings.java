package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a session's run began with that it needs to carry on once it waits for decisions (the
 * provider, base URL, dialect, MCP config file, approval patterns, loop limits, system prompt,
 * answer schema, the configured agent and how deep agents may call agents), kept in the session's metadata so that {@code bellows run --session NAME
 * --approve-call ID}, as printed, runs the calls with the same servers against the same model.
 *
 * <p>Never a secret: keys stay in the environment or the config file, the MCP servers are kept
 * as their config file's path (their env and header values stay in that file), and a base URL
 * with credentials or a query in it is not kept. An empty value means "none".
 */
final class RememberedSettings {

    static final String PROVIDER = "provider";
    static final String BASE_URL = "base_url";
    static final String DIALECT = "dialect";
    static final String MCP_CONFIG = "mcp_config";
    static final String APPROVE = "approve";
    static final String SYSTEM = "system";
    static final String OUTPUT_SCHEMA = "output_schema";
    static final String THINKING_BUDGET = "thinking_budget";
    /** The config file's agent the run began with ({@code --agent NAME}); empty for the built-in ones. */
    static final String AGENT = "agent";
    static final String MAX_DEPTH = "max_depth";

    private static final ObjectMapper JSON = Jackson.JSON;

    private final Map<String, String> stored;

    /** @param stored a session's metadata (empty: nothing remembered) */
    RememberedSettings(Map<String, String> stored) {
        this.stored = stored;
    }

    /** The entries to keep for a run that began with these settings (values never null). */
    static Map<String, String> of(String provider, String baseUrl, String dialect, Path mcpConfig, List<String> approve,
                                  int maxIterations, int maxConsecutiveErrors, int maxRetries, int timeoutSeconds,
                                  int maxContextTokens, int maxToolResultTokens, String system, Path outputSchema,
                                  Integer thinkingBudget, String agent, int maxDepth) {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put(PROVIDER, provider);
        entries.put(BASE_URL, keepable(baseUrl) ? baseUrl : "");
        entries.put(DIALECT, dialect == null ? "" : dialect);
        entries.put(MCP_CONFIG, mcpConfig == null ? "" : mcpConfig.toAbsolutePath().normalize().toString());
        try {
            entries.put(APPROVE, JSON.writeValueAsString(approve == null ? List.of() : approve));
        } catch (JacksonException e) {
            throw new IllegalStateException(e);     // a list of strings always writes
        }
        entries.put("max_iterations", Integer.toString(maxIterations));
        entries.put("max_consecutive_errors", Integer.toString(maxConsecutiveErrors));
        entries.put("max_retries", Integer.toString(maxRetries));
        entries.put("timeout_seconds", Integer.toString(timeoutSeconds));
        entries.put("max_context_tokens", maxContextTokens == Integer.MAX_VALUE ? "" : Integer.toString(maxContextTokens));
        entries.put("max_tool_result_tokens", Integer.toString(maxToolResultTokens));
        entries.put(SYSTEM, system == null ? "" : system);
        entries.put(OUTPUT_SCHEMA, outputSchema == null ? "" : outputSchema.toAbsolutePath().normalize().toString());
        entries.put(THINKING_BUDGET, thinkingBudget == null ? "" : thinkingBudget.toString());
        entries.put(AGENT, agent == null ? "" : agent);
        entries.put(MAX_DEPTH, agent == null ? "" : Integer.toString(maxDepth));     // only the agents' concern
        return Map.copyOf(entries);
    }

    /** Whether a base URL may be kept: no user or password in it, no query (where keys are sometimes put). */
    static boolean keepable(String baseUrl) {
        if (baseUrl == null) {
            return false;
        }
        try {
            URI uri = new URI(baseUrl.strip());
            return uri.getRawUserInfo() == null && uri.getRawQuery() == null && uri.getRawFragment() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** The value kept under {@code key}, or {@code fallback} when none is. */
    String string(String key, String fallback) {
        String value = stored.get(key);
        return value == null || value.isEmpty() ? fallback : value;
    }

    /** The number kept under {@code key}, or {@code fallback} when none (or no number) is. */
    int integer(String key, int fallback) {
        Integer value = integerOrNull(key);
        return value == null ? fallback : value;
    }

    Integer integerOrNull(String key) {
        String value = string(key, null);
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The list kept under {@code key} (a JSON array of strings), or null when none is. */
    List<String> strings(String key) {
        String value = string(key, null);
        if (value == null) {
            return null;
        }
        try {
            JsonNode array = JSON.readTree(value);
            if (!array.isArray()) {
                return null;
            }
            List<String> strings = new ArrayList<>();
            array.forEach(item -> strings.add(item.asString()));
            return strings.isEmpty() ? null : List.copyOf(strings);
        } catch (JacksonException e) {
            return null;
        }
    }
}
