package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ReActAgent;
import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.http.HttpSettings;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tokenizers.TokenCounters;
import dev.bellows.tool.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows run [options] TASK}: one task through the agent loop, as cli.md says
 * ("Choosing a model", "The agent loop", "Provider failures", "Output", "Exit status").
 *
 * <p>Every setting comes from, in this order of precedence: the flag, the environment
 * variable (only for those cli.md gives one), the config file, the default. Every value is
 * checked, and the provider built, before anything is sent: a usage or configuration error
 * is exit status 2 with one line naming the flag, variable or file, and no request.
 *
 * <p>The options hold only what was given on the command line (null otherwise), so the
 * other sources can fill the rest; the defaults are in the descriptions, and {@code --help}
 * never shows a value from the environment (an API key among them).
 */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Runs one task through the agent loop, then exits.",
                "",
                "Each setting comes from the flag, else the environment variable, else the config file "
                        + "(keys like the long options with underscores: \"base_url\", \"max_iterations\", ...; "
                        + "plus \"mcpServers\"), else the default."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:the model ended the loop: task_completion, ask_question or converse",
                "1:max_iterations, circuit_breaker or error",
                "2:usage or configuration error (nothing was sent to a model)",
                "130:cancelled (Ctrl-C)"})
final class RunCommand implements Callable<Integer> {

    /** The model when none is configured and the endpoint is OpenAI's own (a key, no base URL). */
    static final String OPENAI_DEFAULT_MODEL = "gpt-4o-mini";
    /** The model when none is configured and the endpoint is Anthropic's own (no base URL). */
    static final String ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5";

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

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

    @Option(names = "--output", paramLabel = "text|jsonl",
            description = "text: progress on stderr, the result on stdout (default); jsonl: every event as a JSON line on stdout.")
    String output;

    @Option(names = "--system", paramLabel = "TEXT", description = "Instructions, first in the system message.")
    String system;

    @Option(names = "--mcp-config", paramLabel = "FILE",
            description = "MCP servers in the common {\"mcpServers\": {...}} format (not supported yet in this build).")
    String mcpConfig;

    @Option(names = "--agent", paramLabel = "default|react",
            description = "The loop: default (tool calls in <tool> tags) or react (thought / action / answer"
                    + " sections, actions as JSON).")
    String agent;

    @Parameters(paramLabel = "TASK", arity = "1..*",
            description = "The task, the user's message (several words are joined with spaces).")
    List<String> task;

    /** Everything resolved and checked. */
    record Settings(String provider, String baseUrl, String baseUrlSource, ApiKey apiKey, String model,
                    int maxIterations, int maxConsecutiveErrors, int maxRetries, int timeoutSeconds,
                    boolean jsonl, String system, boolean react, int maxContextTokens) {

        @Override
        public String toString() { // no key, ever
            return "Settings[" + provider + ", model=" + model + "]";
        }
    }

    @Override
    public Integer call() {
        Settings settings;
        Provider chosen;
        try {
            settings = resolve();
            chosen = provider(settings);
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
        try (Provider closing = chosen) {
            return run(settings, closing, String.join(" ", task));
        }
    }

    // --- resolving the settings ---

    Settings resolve() throws UsageException {
        Host host = root.host;
        String text = String.join(" ", task);
        if (text.isBlank()) {
            throw new UsageException("TASK is empty: say what the agent should do, e.g. bellows run \"list the files\"");
        }
        ConfigFile file = configFile(host);

        Value providerName = string(provider, "--provider", "BELLOWS_PROVIDER", file, "provider", "openai");
        String providerId = providerName.value.strip().toLowerCase(java.util.Locale.ROOT);
        if (!providerId.equals("openai") && !providerId.equals("anthropic")) {
            throw new UsageException(providerName.source + ": unknown provider"
                    + " (openai for any OpenAI-compatible endpoint, or anthropic)");
        }
        boolean anthropic = providerId.equals("anthropic");
        String prefix = anthropic ? "ANTHROPIC" : "OPENAI";
        Value base = string(baseUrl, "--base-url", prefix + "_BASE_URL", file, "base_url", null);
        Value key = string(apiKey, "--api-key", prefix + "_API_KEY", file, "api_key", null);
        ApiKey apiKeyValue = null;
        if (key.value != null) {
            try {
                apiKeyValue = ApiKey.of(key.value);
            } catch (IllegalArgumentException e) {
                throw new UsageException(key.source + ": " + e.getMessage());
            }
        }
        Value modelName = string(model, "--model", "BELLOWS_MODEL", file, "model", null);
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
                DefaultAgent.DEFAULT_MAX_ITERATIONS, 1);
        int errors = integer(maxConsecutiveErrors, "--max-consecutive-errors", file, "max_consecutive_errors",
                DefaultAgent.DEFAULT_MAX_CONSECUTIVE_ERRORS, 1);
        int retries = integer(maxRetries, "--max-retries", file, "max_retries", RetryPolicy.defaults().maxRetries(), 0);
        int timeout = integer(timeoutSeconds, "--timeout-seconds", file, "timeout_seconds", 120, 1);
        int contextTokens = integer(maxContextTokens, "--max-context-tokens", file, "max_context_tokens",
                Integer.MAX_VALUE, 1);

        Value outputMode = string(output, "--output", null, file, "output", "text");
        if (!outputMode.value.equals("text") && !outputMode.value.equals("jsonl")) {
            throw new UsageException(outputMode.source + ": unknown output (text or jsonl)");
        }
        Value instructions = string(system, "--system", null, file, "system", "");

        Value agentKind = string(agent, "--agent", null, file, "agent", "default");
        if (!agentKind.value.equals("default") && !agentKind.value.equals("react")) {
            throw new UsageException(agentKind.source + ": unknown agent (default or react)");
        }

        if (file.hasServers()) {
            throw new UsageException(file.source(ConfigFile.MCP_SERVERS)
                    + ": MCP servers are not supported yet in this build; remove them to run without them");
        }
        Value mcp = string(mcpConfig, "--mcp-config", null, file, "mcp_config", null);
        if (mcp.value != null) {
            Path mcpFile = (mcp.source.equals("--mcp-config") ? host.workingDirectory() : file.directory)
                    .resolve(mcp.value);
            String label = mcp.source.equals("--mcp-config") ? "--mcp-config " + mcp.value : mcp.source + " " + mcp.value;
            if (ConfigFile.readMcpConfig(mcpFile, label) > 0) {
                throw new UsageException(label + ": MCP servers are not supported yet in this build; "
                        + "run without --mcp-config");
            }
        }
        return new Settings(providerId, base.value, base.source, apiKeyValue, modelValue, iterations, errors,
                retries, timeout, outputMode.value.equals("jsonl"), instructions.value,
                agentKind.value.equals("react"), contextTokens);
    }

    private ConfigFile configFile(Host host) throws UsageException {
        if (config != null) {
            return ConfigFile.read(host.workingDirectory().resolve(config), "--config " + config);
        }
        String fromEnv = host.envValue("BELLOWS_CONFIG");
        if (fromEnv != null) {
            return ConfigFile.read(host.workingDirectory().resolve(fromEnv), "BELLOWS_CONFIG " + fromEnv);
        }
        Path local = host.workingDirectory().resolve("bellows.json");
        if (Files.exists(local)) {
            return ConfigFile.read(local, "bellows.json");
        }
        return ConfigFile.none(host.workingDirectory());
    }

    /** A value and where it came from: the flag, the variable, the file's key, or the default. */
    private record Value(String value, String source) {
    }

    private Value string(String flag, String flagName, String envName, ConfigFile file, String key, String fallback) {
        if (flag != null) {
            return new Value(flag, flagName);
        }
        String env = envName == null ? null : root.host.envValue(envName);
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

    static Provider provider(Settings settings) throws UsageException {
        HttpSettings http = HttpSettings.defaults().withIdleTimeout(Duration.ofSeconds(settings.timeoutSeconds()));
        try {
            if (settings.provider().equals("anthropic")) {
                AnthropicProvider.Builder builder = AnthropicProvider.builder().apiKey(settings.apiKey()).httpSettings(http);
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

    // --- running ---

    private int run(Settings settings, Provider chosen, String text) {
        AgentRunner runner = new AgentRunner(root, spec.qualifiedName(), settings.jsonl(), settings.apiKey());
        AgentListener listener = runner.listener();
        RetryPolicy retryPolicy = RetryPolicy.defaults().withMaxRetries(settings.maxRetries());
        ConversationMemory memory = memory(settings);
        Agent agent = settings.react()
                ? ReActAgent.builder()
                        .provider(chosen)
                        .model(settings.model())
                        .instructions(settings.system())
                        .toolRegistry(new ToolRegistry())
                        .memory(memory)
                        .maxIterations(settings.maxIterations())
                        .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                        .retryPolicy(retryPolicy)
                        .listener(listener)
                        .build()
                : DefaultAgent.builder()
                        .provider(chosen)
                        .model(settings.model())
                        .instructions(settings.system())
                        .toolRegistry(new ToolRegistry())
                        .memory(memory)
                        .maxIterations(settings.maxIterations())
                        .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                        .retryPolicy(retryPolicy)
                        .listener(listener)
                        .build();
        if (settings.maxContextTokens() != Integer.MAX_VALUE) {
            // The system message and the task are never left out: a budget below them cannot work.
            Message system = agent instanceof ReActAgent react ? react.prompts().systemMessage()
                    : ((DefaultAgent) agent).prompts().systemMessage();
            long fixed = (long) memory.tokenCount(system) + memory.tokenCount(Message.user(text));
            if (settings.maxContextTokens() < fixed) {
                return usage("--max-context-tokens: must be at least " + fixed + " here: the system prompt and the"
                        + " task alone take " + fixed + " tokens, and neither is ever left out (leave room for the"
                        + " conversation and the answer too)");
            }
        }
        return runner.run(agent, text);
    }

    /**
     * The run's memory: whole turns, pruned to {@code --max-context-tokens} with the model's own
     * tokenizer where Bellows has it (OpenAI's encodings), else the documented estimate.
     */
    static ConversationMemory memory(Settings settings) {
        ConversationMemory.Builder builder = ConversationMemory.builder()
                .tokenCounter(TokenCounters.forModel(settings.model()));
        if (settings.maxContextTokens() != Integer.MAX_VALUE) {
            builder.maxTokens(settings.maxContextTokens());
        }
        return builder.build();
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
