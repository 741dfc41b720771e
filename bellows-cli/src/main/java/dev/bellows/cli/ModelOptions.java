package dev.bellows.cli;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.http.HttpSettings;
import dev.bellows.http.SafeUris;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.InMemoryMemoryStore;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.StoredSession;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tokenizers.TokenCounters;
import dev.bellows.mcp.McpServerConfig;
import dev.bellows.mcp.McpServers;
import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * The settings {@code bellows run} and {@code bellows chat} share: the model, the endpoint, the
 * loop's limits, MCP servers, the session. A picocli mixin, so both commands have the same
 * flags, and one {@link #resolve} turns flag, environment variable, config file and default
 * (in that order of precedence) into checked {@link Settings}.
 *
 * <p>The options hold only what was given on the command line (null otherwise), so the
 * other sources can fill the rest.
 */
final class ModelOptions {

    /** The model when none is configured and the endpoint is OpenAI's own (a key, no base URL). */
    static final String OPENAI_DEFAULT_MODEL = "gpt-4o-mini";
    /** The model when none is configured and the endpoint is Anthropic's own (no base URL). */
    static final String ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5";

    @Option(names = "--provider", paramLabel = "openai|anthropic",
            description = "The API: openai (any OpenAI-compatible endpoint) or anthropic. Env BELLOWS_PROVIDER; default openai.")
    String provider;

    @Option(names = "--base-url", paramLabel = "URL",
            // The URL on a line of its own: a line break inside it would make it wrong to copy.
            description = {"The API's base URL. Env OPENAI_BASE_URL / ANTHROPIC_BASE_URL; default: the provider's "
                    + "public endpoint when a key is set, else, for openai, Ollama's:", "http://localhost:11434/v1"})
    String baseUrl;

    @Option(names = "--api-key", paramLabel = "KEY",
            description = "The API key. Env OPENAI_API_KEY / ANTHROPIC_API_KEY; default none: no Authorization header.")
    String apiKey;

    @Option(names = "--model", paramLabel = "NAME",
            description = "The model. Env BELLOWS_MODEL. Required, except on the providers' own endpoints ("
                    + OPENAI_DEFAULT_MODEL + " with an OpenAI key and no base URL; " + ANTHROPIC_DEFAULT_MODEL
                    + " for anthropic without a base URL).")
    String model;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Settings as a JSON object. Env BELLOWS_CONFIG; default bellows.json in the working directory if present.")
    String config;

    @Option(names = "--max-iterations", paramLabel = "N", description = "Model calls before the loop stops (default 25).")
    Integer maxIterations;

    @Option(names = "--max-consecutive-errors", paramLabel = "N",
            description = "Errors in a row before the loop stops (default 3).")
    Integer maxConsecutiveErrors;

    @Option(names = "--max-retries", paramLabel = "N", description = "Retries of a failed model call (default 3).")
    Integer maxRetries;

    @Option(names = "--timeout-seconds", paramLabel = "N",
            description = "The longest wait for the next byte of a model's answer (default 120).")
    Integer timeoutSeconds;

    @Option(names = "--max-context-tokens", paramLabel = "N",
            description = "At most N tokens sent per model call: the oldest whole turns of the conversation are"
                    + " left out to fit (never the system message or the task, never a tool call without its"
                    + " observation). Counted with the model's tokenizer for OpenAI models (o200k_base,"
                    + " cl100k_base), else estimated. Leave room for the answer. Default: no limit.")
    Integer maxContextTokens;

    @Option(names = "--max-tool-result-tokens", paramLabel = "N",
            description = "The most one tool result may cost the model: a longer one reaches it cut, with a note"
                    + " saying how much was left out. Default: 25000.")
    Integer maxToolResultTokens;

    @Option(names = "--system", paramLabel = "TEXT", description = "Instructions, first in the system message.")
    String system;

    @Option(names = "--mcp-config", paramLabel = "FILE",
            description = "MCP servers in the common {\"mcpServers\": {...}} format; their tools join the built-ins."
                    + " Default: the config file's \"mcpServers\" (and its \"mcp_config\" file).")
    String mcpConfig;

    @Option(names = "--agent", paramLabel = "default|react|NAME",
            description = "The loop: default (tool calls in <tool> tags) or react (thought / action / answer"
                    + " sections, actions as JSON); or NAME, an agent or workflow of the config file's \"agents\""
                    + " (see bellows agents).")
    String agent;

    @Option(names = "--max-depth", paramLabel = "N",
            description = "How deep agents may call agents (\"agents\" of the config file): an agent at this depth is"
                    + " offered none. Default: 5.")
    Integer maxDepth;

    @Option(names = "--dialect", paramLabel = "NAME|auto",
            description = "The model's own format of thinking and tool calls (see docs/dialects.md): bellows (default),"
                    + " hermes, qwen3_coder, llama3_json, mistral, deepseek_v3, kimi_k2, glm45, minimax_m2, harmony,"
                    + " kimi_think, or auto (picked from --model).")
    String dialect;

    @Option(names = "--session", paramLabel = "NAME",
            description = "Continue (or start) the stored conversation NAME: its turns, plan, model and tool mode"
                    + " are kept in the session store (default: the data directory), each request written as it"
                    + " ends; with no model or --agent configured, the session's are used. See bellows sessions.")
    String session;

    @Option(names = "--session-store", paramLabel = "URL",
            // The URL forms on lines of their own: a line break inside one would make it wrong to copy.
            description = {"Keep sessions in a PostgreSQL database, to share them across machines:",
                    "postgresql://[USER@]HOST[:PORT]/DATABASE", "(or jdbc:postgresql://...); the password from the URL,"
                    + " else PGPASSWORD, else ~/.pgpass. Env " + SessionStoreLocation.ENV + "; config \""
                    + SessionStoreLocation.CONFIG_KEY + "\"; default (or sqlite): SQLite in the data directory."})
    String sessionStore;

    @Option(names = "--data-dir", paramLabel = "DIR",
            // The paths on lines of their own: picocli would break "~/.local" after its dot.
            description = {"Where sessions, MCP servers' tokens (mcp-oauth.json) and the chat's line history are"
                    + " kept. Env BELLOWS_DATA_DIR; default:", "$XDG_DATA_HOME/bellows, else", "~/.local/share/bellows."})
    String dataDir;

    @Option(names = "--elicitation", paramLabel = "ask|defaults|decline",
            description = "How an MCP server's questions are answered: ask (default on a terminal: field by field),"
                    + " defaults (each field's default), decline (default without a terminal). Env "
                    + Elicitations.ENV + "; config \"" + Elicitations.CONFIG_KEY + "\".")
    String elicitation;

    @Option(names = "--tool-mode", paramLabel = "tags|native",
            description = "How the model calls tools: tags (default: <tool> blocks taught by the system prompt,"
                    + " any model) or native (the API's own tool calling: OpenAI tool_calls, Anthropic tool_use).")
    String toolMode;

    @Option(names = "--approve", paramLabel = "PATTERN",
            description = "Every call of the tools PATTERN names waits for your approval: SERVER/TOOL, * matching any"
                    + " run of characters (files/*, */write_file, *). Repeatable; config \"approve\": [...]."
                    + " chat asks; run stops with exit status 3 (resume with --approve-call / --deny-call).")
    List<String> approve;

    @Option(names = "--thinking-budget", paramLabel = "N",
            description = "Anthropic only: turn extended thinking on with a budget of N tokens (at least 1024).")
    Integer thinkingBudget;

    /**
     * Whether this command carries on a session's waiting run (a resume): then what that run
     * began with ({@link RememberedSettings}) fills what no flag, variable or config file says.
     */
    boolean carryingOn;

    /** The dialect a carried-on run began with, when neither flag nor config file names one; set by resolve. */
    private String rememberedDialect;


    /** Everything resolved and checked. */
    record Settings(String provider, String baseUrl, String baseUrlSource, ApiKey apiKey, String model,
                    int maxIterations, int maxConsecutiveErrors, int maxRetries, int timeoutSeconds,
                    boolean jsonl, String system, ToolMode toolMode, int maxContextTokens, int maxToolResultTokens,
                    Integer thinkingBudget,
                    List<McpServerConfig> mcpServers, ObjectNode answerSchema, SessionStoreLocation sessionStore,
                    List<String> approve, Map<String, String> remembered, AgentsConfig agents,
                    AgentsConfig.Spec configuredAgent, int maxDepth) {

        /** The same settings with another model and base URL (a configured agent's own). */
        Settings withModel(String model, String baseUrl, String baseUrlSource) {
            return new Settings(provider, baseUrl, baseUrlSource, apiKey, model, maxIterations, maxConsecutiveErrors,
                    maxRetries, timeoutSeconds, jsonl, system, toolMode, maxContextTokens, maxToolResultTokens,
                    thinkingBudget, mcpServers, answerSchema, sessionStore, approve, remembered, agents,
                    configuredAgent, maxDepth);
        }

        @Override
        public String toString() { // no key, ever
            return "Settings[" + provider + ", model=" + model + "]";
        }
    }

    /**
     * Every setting resolved and checked, before anything is sent.
     *
     * @param output           {@code --output} as given (null: the config file's, else text)
     * @param outputSchema     {@code --output-schema} as given (null: the config file's, else none)
     * @param dataDirOnlyForStores whether {@code --data-dir} means nothing without {@code --session}
     *                             or MCP servers (whose tokens it keeps); {@code --session-store}
     *                             never means anything without {@code --session}
     */
    Settings resolve(Host host, String output, String outputSchema, boolean dataDirOnlyForStores)
            throws UsageException {
        if (sessionStore != null && session == null) {
            throw new UsageException("--session-store: only used with --session NAME");
        }
        ConfigFile file = configFile(host);
        SessionStoreLocation store = session == null ? null
                : SessionStoreLocation.resolve(host, sessionStore, dataDir, file);
        // a session continues with the model and loop it ran with, unless told otherwise
        Map<String, String> stored = session == null ? Map.of() : RunSession.storedSettings(session, store);
        // a waiting run is carried on with what it began with, unless told otherwise
        RememberedSettings carried = new RememberedSettings(carryingOn ? stored : Map.of());

        Value providerName = string(host, provider, "--provider", "BELLOWS_PROVIDER", file, "provider",
                carried.string(RememberedSettings.PROVIDER, "openai"));
        String providerId = providerName.value.strip().toLowerCase(java.util.Locale.ROOT);
        if (!providerId.equals("openai") && !providerId.equals("anthropic")) {
            throw new UsageException(providerName.source + ": unknown provider"
                    + " (openai for any OpenAI-compatible endpoint, or anthropic)");
        }
        boolean anthropic = providerId.equals("anthropic");
        String prefix = anthropic ? "ANTHROPIC" : "OPENAI";
        Value base = string(host, baseUrl, "--base-url", prefix + "_BASE_URL", file, "base_url",
                providerId.equals(carried.string(RememberedSettings.PROVIDER, null))
                        ? carried.string(RememberedSettings.BASE_URL, null) : null);
        Value key = string(host, apiKey, "--api-key", prefix + "_API_KEY", file, "api_key", null);
        ApiKey apiKeyValue = null;
        if (key.value != null) {
            try {
                apiKeyValue = ApiKey.of(key.value);
            } catch (IllegalArgumentException e) {
                throw new UsageException(key.source + ": " + e.getMessage());
            }
        }
        Value modelName = string(host, model, "--model", "BELLOWS_MODEL", file, "model", stored.get(StoredSession.MODEL));
        String modelValue = modelName.value == null ? null : modelName.value.strip();
        if (modelValue == null || modelValue.isEmpty()) {
            if (anthropic && base.value == null) {
                modelValue = ANTHROPIC_DEFAULT_MODEL;
            } else if (!anthropic && base.value == null && apiKeyValue != null) {
                modelValue = OPENAI_DEFAULT_MODEL;
            } else {
                throw new UsageException("--model: no model configured"
                        + (base.value == null ? " (the endpoint is Ollama's, " + OpenAiProvider.OLLAMA_BASE_URL + ")" : "")
                        + ": give --model NAME (or BELLOWS_MODEL, or \"model\" in the config file)");
            }
        }

        int iterations = integer(maxIterations, "--max-iterations", file, "max_iterations",
                carried.integer("max_iterations", DefaultAgent.DEFAULT_MAX_ITERATIONS), 1);
        int errors = integer(maxConsecutiveErrors, "--max-consecutive-errors", file, "max_consecutive_errors",
                carried.integer("max_consecutive_errors", DefaultAgent.DEFAULT_MAX_CONSECUTIVE_ERRORS), 1);
        int retries = integer(maxRetries, "--max-retries", file, "max_retries", carried.integer("max_retries", RetryPolicy.defaults().maxRetries()), 0);
        int timeout = integer(timeoutSeconds, "--timeout-seconds", file, "timeout_seconds", carried.integer("timeout_seconds", 120), 1);
        int contextTokens = integer(maxContextTokens, "--max-context-tokens", file, "max_context_tokens",
                carried.integer("max_context_tokens", Integer.MAX_VALUE), 1);
        int resultTokens = integer(maxToolResultTokens, "--max-tool-result-tokens", file, "max_tool_result_tokens",
                carried.integer("max_tool_result_tokens", ResultLimit.DEFAULT_MAX_TOKENS), 1);

        Value outputMode = string(host, output, "--output", null, file, "output", "text");
        if (!outputMode.value.equals("text") && !outputMode.value.equals("jsonl")) {
            throw new UsageException(outputMode.source + ": unknown output (text or jsonl)");
        }
        Value instructions = string(host, system, "--system", null, file, "system",
                carried.string(RememberedSettings.SYSTEM, ""));

        // a run of a configured agent is carried on by the same agent: its sub-agents' calls wait in it
        Value agentKind = string(host, agent, "--agent", null, file, "agent",
                carried.string(RememberedSettings.AGENT, "react".equals(stored.get(StoredSession.TOOL_MODE)) ? "react"
                        : "default"));
        AgentsConfig.Spec configured = null;
        if (!AgentsConfig.BUILT_IN.contains(agentKind.value)) {
            configured = file.agents().get(agentKind.value);
            if (configured == null && file.agents().remote(agentKind.value) != null) {
                throw new UsageException(agentKind.source + ": " + agentKind.value + " is a remote A2A agent (\"a2a\"),"
                        + " which this command cannot run as its own agent (bellows run, chat and serve run it; here,"
                        + " name it in a model agent's \"agents\")");
            }
            if (configured == null) {
                throw new UsageException(agentKind.source + ": unknown agent (default or react"
                        + (file.agents().names().isEmpty() ? ", or the name of an agent of the config file's"
                        + " \"agents\" or \"a2a\")" : ", or one of the config file's agents: "
                        + String.join(", ", file.agents().names()) + ")"));
            }
            agentKind = new Value(configured.kind() == AgentsConfig.Kind.REACT ? "react" : "default", agentKind.source);
        }
        if (maxDepth != null && maxDepth < 1) {
            throw new UsageException("--max-depth: must be at least 1");
        }
        int depth = maxDepth != null ? maxDepth : carried.integer(RememberedSettings.MAX_DEPTH, 5);
        Value mode = string(host, toolMode, "--tool-mode", null, file, "tool_mode",
                "native".equals(stored.get(StoredSession.TOOL_MODE)) ? "native" : "tags");
        if (!mode.value.equals("tags") && !mode.value.equals("native")) {
            throw new UsageException(mode.source + ": unknown tool mode \"" + mode.value + "\" (tags or native)");
        }
        boolean react = agentKind.value.equals("react");
        if (react && mode.value.equals("native")) {
            throw new UsageException(mode.source + ": the react agent writes its tool calls in sections;"
                    + " native tool calling is for the default agent (drop --agent react or --tool-mode native)");
        }
        ToolMode chosenMode = react ? ToolMode.REACT : mode.value.equals("native") ? ToolMode.NATIVE : ToolMode.TAGS;
        Integer budget = thinkingBudget != null ? thinkingBudget : file.integer("thinking_budget") != null
                ? file.integer("thinking_budget") : carried.integerOrNull(RememberedSettings.THINKING_BUDGET);
        String budgetSource = thinkingBudget != null ? "--thinking-budget" : file.source("thinking_budget");
        if (budget != null) {
            if (!anthropic) {
                throw new UsageException(budgetSource + ": extended thinking is an Anthropic option; use it with"
                        + " --provider anthropic (OpenAI-compatible reasoning models think without it)");
            }
            if (budget < AnthropicProvider.MIN_THINKING_BUDGET) {
                throw new UsageException(budgetSource + " " + budget + ": must be at least "
                        + AnthropicProvider.MIN_THINKING_BUDGET + " (the API's minimum)");
            }
        }

        Value schemaFile = string(host, outputSchema, "--output-schema", null, file, "output_schema",
                carried.string(RememberedSettings.OUTPUT_SCHEMA, null));
        ObjectNode answerSchema = null;
        java.nio.file.Path schemaPath = null;
        if (schemaFile.value != null) {
            boolean flag = schemaFile.source.equals("--output-schema");
            schemaPath = (flag ? host.workingDirectory() : file.directory).resolve(schemaFile.value);
            answerSchema = ConfigFile.readSchema(schemaPath,
                    (flag ? "--output-schema " : schemaFile.source + " ") + schemaFile.value);
            if (react) {
                throw new UsageException(schemaFile.source + ": a structured answer is for the default agent; the react"
                        + " agent answers in its answer section");
            }
        }

        List<String> patterns = approve != null ? List.copyOf(approve) : file.strings("approve") != null
                ? file.strings("approve") : carried.strings(RememberedSettings.APPROVE);
        String patternsSource = approve != null ? "--approve" : file.source("approve");
        for (String pattern : patterns == null ? List.<String>of() : patterns) {
            try {
                DefaultAgent.builder().requireApproval(pattern);
            } catch (IllegalArgumentException e) {
                throw new UsageException(patternsSource + ": " + e.getMessage());
            }
        }

        String mcpFile = mcpConfig != null ? mcpConfig : carried.string(RememberedSettings.MCP_CONFIG, null);
        List<McpServerConfig> servers = McpSetup.servers(host, file, mcpFile);
        rememberedDialect = carried.string(RememberedSettings.DIALECT, null);
        String dialectValue = dialect(host);
        if (dataDirOnlyForStores && dataDir != null && session == null && servers.isEmpty()) {
            throw new UsageException("--data-dir: only used with --session NAME or with MCP servers (for their tokens)");
        }
        return new Settings(providerId, base.value, base.source, apiKeyValue, modelValue, iterations, errors,
                retries, timeout, outputMode.value.equals("jsonl"), instructions.value,
                chosenMode, contextTokens, resultTokens, budget, servers, answerSchema, store,
                patterns == null ? List.of() : patterns,
                RememberedSettings.of(providerId, base.value, dialectValue,
                        mcpFile == null ? null : host.workingDirectory().resolve(mcpFile), patterns, iterations, errors,
                        retries, timeout, contextTokens, resultTokens, instructions.value, schemaPath, budget,
                        configured == null ? null : configured.name(), depth),
                file.agents(), configured, depth);
    }

    /** {@code --dialect}, else the config file's {@code "dialect"}; null when neither says. */
    String dialect(Host host) throws UsageException {
        String configured = dialect != null ? dialect : configFile(host).string("dialect");
        return configured != null ? configured : rememberedDialect;
    }

    /** The data directory: {@code --data-dir}, {@code BELLOWS_DATA_DIR}, the config file's {@code "data_dir"}, the default. */
    java.nio.file.Path dataDirectory(Host host) throws UsageException {
        return DataDirectory.resolve(host, dataDir, configFile(host));
    }

    ConfigFile configFile(Host host) throws UsageException {
        return ConfigFile.locate(host, config);
    }

    /**
     * The remote A2A agent {@code --agent} (or the config file's {@code "agent"}) names, which
     * runs without a model of this command's; null when it names none.
     */
    dev.bellows.a2a.client.RemoteAgentConfig remoteAgent(Host host) throws UsageException {
        ConfigFile file = configFile(host);
        String name = agent != null ? agent : file.string("agent");
        return name == null ? null : file.agents().remote(name);
    }

    /** A value and where it came from: the flag, the variable, the file's key, or the default. */
    private record Value(String value, String source) {
    }

    private static Value string(Host host, String flag, String flagName, String envName, ConfigFile file, String key, String fallback) {
        if (flag != null) {
            return new Value(flag, flagName);
        }
        String env = envName == null ? null : host.envValue(envName);
        if (env != null) {
            return new Value(env, envName);
        }
        String configured = file.string(key);
        if (configured != null) {
            return new Value(configured, file.source(key));
        }
        return new Value(fallback, flagName);
    }

    private static int integer(Integer flag, String flagName, ConfigFile file, String key, int fallback, int min)
            throws UsageException {
        Integer value = flag != null ? flag : file.integer(key);
        String source = flag != null ? flagName : file.source(key);
        if (value == null) {
            return fallback;
        }
        if (value < min) {
            throw new UsageException(source + ": must be at least " + min);
        }
        return value;
    }

    /**
     * The model and the endpoint it is asked at, for a line at start: {@code model NAME at URL},
     * and {@code (no API key set)} without a key. The address without user info or query (which
     * may hold credentials); never the key.
     */
    static String endpoint(Settings settings) {
        String base;
        if (settings.baseUrl() != null) {
            base = settings.baseUrl();
        } else if (settings.provider().equals("anthropic")) {
            base = AnthropicProvider.DEFAULT_BASE_URL;
        } else {
            base = (settings.apiKey() != null ? OpenAiProvider.OPENAI_BASE_URL : OpenAiProvider.OLLAMA_BASE_URL).toString();
        }
        String shown;
        try {
            shown = SafeUris.display(java.net.URI.create(base.strip()));
        } catch (IllegalArgumentException e) {
            shown = "the configured base URL";      // provider() has accepted it; nothing of it unchecked is printed
        }
        return "model " + settings.model() + " at " + shown + (settings.apiKey() == null ? " (no API key set)" : "");
    }

    /**
     * Refuses a configured agent (and {@code --max-depth}) for a command that runs the command
     * line's single agent ({@code serve}, {@code worker}), rather than leave it unused.
     */
    void commandLinesAgentOnly(Settings settings, String command) throws UsageException {
        if (settings.configuredAgent() != null) {
            throw new UsageException("--agent " + settings.configuredAgent().name() + ": " + command + " runs the"
                    + " command line's agent (default or react); the config file's agents run with bellows run,"
                    + " bellows chat and bellows serve");
        }
        if (maxDepth != null) {
            throw new UsageException("--max-depth: only for the config file's agents, with bellows run, bellows chat and"
                    + " bellows serve");
        }
    }

    static Provider provider(Settings settings) throws UsageException {
        HttpSettings http = HttpSettings.defaults().withIdleTimeout(Duration.ofSeconds(settings.timeoutSeconds()));
        try {
            if (settings.provider().equals("anthropic")) {
                AnthropicProvider.Builder builder = AnthropicProvider.builder().apiKey(settings.apiKey()).httpSettings(http);
                if (settings.thinkingBudget() != null) {
                    // thinking counts into max_tokens: leave the answer the room it has without it
                    builder.defaultMaxTokens(settings.thinkingBudget() + AnthropicProvider.DEFAULT_MAX_TOKENS)
                            .thinking(settings.thinkingBudget());
                }
                if (settings.baseUrl() != null) {
                    builder.baseUrl(settings.baseUrl());
                }
                return builder.build();
            }
            OpenAiProvider.Builder builder = OpenAiProvider.builder().apiKey(settings.apiKey()).httpSettings(http);
            if (settings.baseUrl() != null) {
                builder.baseUrl(settings.baseUrl());
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            String message = settings.apiKey() == null ? e.getMessage() : settings.apiKey().redact(e.getMessage());
            throw new UsageException(settings.baseUrlSource() + ": " + message);
        }
    }

}
