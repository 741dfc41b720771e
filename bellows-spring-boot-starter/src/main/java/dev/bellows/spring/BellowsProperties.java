package dev.bellows.spring;

import dev.bellows.agent.ToolMode;
import dev.bellows.provider.ApiKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code bellows.*} properties: which model API to call and how the agent runs.
 *
 * <pre>
 * bellows.provider=openai
 * bellows.base-url=http://localhost:11434/v1
 * bellows.model=llama3.1
 * bellows.max-iterations=10
 * </pre>
 *
 * <p>The API key is an {@link ApiKey}: it has no getter that a report (Actuator's
 * {@code configprops}, a JSON dump of this bean) could read it through, and
 * {@link #toString()} leaves it out. Without {@code bellows.api-key} it is read from
 * {@code OPENAI_API_KEY} or {@code ANTHROPIC_API_KEY}, by the chosen provider.
 */
@ConfigurationProperties("bellows")
public class BellowsProperties {

    /** The model API, as the CLI's --provider. */
    public enum ProviderKind {
        /** OpenAI's Chat Completions, and every server that speaks it (Ollama, vLLM, llama.cpp, LM Studio). */
        OPENAI,
        /** Anthropic's Messages API. */
        ANTHROPIC
    }

    /** Which model API to call: openai (also for Ollama, vLLM, llama.cpp, LM Studio) or anthropic. */
    private ProviderKind provider = ProviderKind.OPENAI;

    /**
     * The API's base URL, e.g. http://localhost:11434/v1 for Ollama. Default: the provider's
     * own endpoint (https://api.openai.com/v1 or https://api.anthropic.com/v1).
     */
    private String baseUrl;

    /**
     * The API key. Default: the environment variable OPENAI_API_KEY, or ANTHROPIC_API_KEY for
     * provider anthropic. Required on the providers' own endpoints, optional with a base URL.
     */
    private ApiKey apiKey;

    /**
     * The model's name, as the server knows it. Required with a base URL; on the providers'
     * own endpoints the default is gpt-4o-mini (openai) or claude-sonnet-4-5 (anthropic).
     */
    private String model;

    /** The user's instructions (persona, task rules), first in the system message. */
    private String instructions = "";

    /** How the model calls tools: tags (tool calls in tags, any model) or react (thought / action / answer sections). */
    private ToolMode toolMode = ToolMode.TAGS;

    /** Whether the agent offers the built-in tools (task_completion, ask_question, converse, update_plan). */
    private boolean builtinTools = true;

    /** Model calls per run before it ends with max_iterations. */
    private int maxIterations = 25;

    /** Errors in a row before a run ends with circuit_breaker. */
    private int maxConsecutiveErrors = 3;

    /** How often a failed model call (broken stream, 429, 5xx) is retried. */
    private int maxRetries = 3;

    /** How long connecting to the model API may take. */
    private Duration connectTimeout = Duration.ofSeconds(10);

    /** How long to wait for the response headers, and then for each next byte of the answer. */
    private Duration timeout = Duration.ofSeconds(120);

    /**
     * Where the SQLite session store keeps sessions.db, when bellows-sessions-sqlite is on the
     * class path. Default: $XDG_DATA_HOME/bellows, else ~/.local/share/bellows (where the
     * CLI keeps its sessions when BELLOWS_DATA_DIR is not set).
     */
    private Path sessionsDirectory;

    public ProviderKind getProvider() {
        return provider;
    }

    public void setProvider(ProviderKind provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    public String getBaseUrl() {
        return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = blankToNull(baseUrl);
    }

    /**
     * The key set as {@code bellows.api-key}, if any; it prints as {@code ApiKey[REDACTED]}.
     * Package-private on purpose: no report reads it through a getter.
     */
    ApiKey apiKey() {
        return apiKey;
    }

    /** Sets the key; blank means not set (as {@code bellows.api-key=${MY_KEY:}} gives when MY_KEY is unset). */
    public void setApiKey(String apiKey) {
        this.apiKey = apiKey == null || apiKey.isBlank() ? null : ApiKey.of(apiKey);
    }

    public String getModel() {
        return model;
    }

    public void setModel(String model) {
        this.model = blankToNull(model);
    }

    public String getInstructions() {
        return instructions;
    }

    public void setInstructions(String instructions) {
        this.instructions = instructions == null ? "" : instructions;
    }

    public ToolMode getToolMode() {
        return toolMode;
    }

    public void setToolMode(ToolMode toolMode) {
        this.toolMode = Objects.requireNonNull(toolMode, "toolMode");
    }

    public boolean isBuiltinTools() {
        return builtinTools;
    }

    public void setBuiltinTools(boolean builtinTools) {
        this.builtinTools = builtinTools;
    }

    public int getMaxIterations() {
        return maxIterations;
    }

    public void setMaxIterations(int maxIterations) {
        this.maxIterations = atLeast("bellows.max-iterations", 1, maxIterations);
    }

    public int getMaxConsecutiveErrors() {
        return maxConsecutiveErrors;
    }

    public void setMaxConsecutiveErrors(int maxConsecutiveErrors) {
        this.maxConsecutiveErrors = atLeast("bellows.max-consecutive-errors", 1, maxConsecutiveErrors);
    }

    public int getMaxRetries() {
        return maxRetries;
    }

    public void setMaxRetries(int maxRetries) {
        this.maxRetries = atLeast("bellows.max-retries", 0, maxRetries);
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = positive("bellows.connect-timeout", connectTimeout);
    }

    public Path getSessionsDirectory() {
        return sessionsDirectory;
    }

    public void setSessionsDirectory(Path sessionsDirectory) {
        this.sessionsDirectory = sessionsDirectory;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = positive("bellows.timeout", timeout);
    }

    /** Every setting but the API key, which shows only whether it is set. */
    @Override
    public String toString() {
        return "BellowsProperties[provider=" + provider + ", baseUrl=" + baseUrl + ", apiKey="
                + (apiKey == null ? "(not set)" : apiKey) + ", model=" + model + ", toolMode=" + toolMode
                + ", builtinTools=" + builtinTools + ", maxIterations=" + maxIterations
                + ", maxConsecutiveErrors=" + maxConsecutiveErrors + ", maxRetries=" + maxRetries
                + ", connectTimeout=" + connectTimeout + ", timeout=" + timeout + "]";
    }

    // Spring Boot reports a setter's exception as the cause of "Unable to set value for
    // property max-iterations"; the message names the property as it is written.
    private static int atLeast(String property, int minimum, int value) {
        if (value < minimum) {
            throw new IllegalArgumentException(property + " must be at least " + minimum + ", got " + value);
        }
        return value;
    }

    private static Duration positive(String property, Duration value) {
        Objects.requireNonNull(value, property);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, got " + value);
        }
        return value;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
