package dev.bellows.cli;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.InMemoryMemoryStore;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tokenizers.TokenCounters;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.concurrent.Callable;
import dev.bellows.cli.ModelOptions.Settings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
    static final String OPENAI_DEFAULT_MODEL = ModelOptions.OPENAI_DEFAULT_MODEL;
    /** The model when none is configured and the endpoint is Anthropic's own (no base URL). */
    static final String ANTHROPIC_DEFAULT_MODEL = ModelOptions.ANTHROPIC_DEFAULT_MODEL;

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Mixin
    ModelOptions options;

    @Option(names = "--output", paramLabel = "text|jsonl",
            description = "text: progress on stderr, the result on stdout (default); jsonl: every event as a JSON line on stdout.")
    String output;

    @Option(names = "--output-schema", paramLabel = "FILE",
            description = "A JSON Schema the final answer must match: task_completion's result is checked against it"
                    + " (a mismatch goes back to the model to correct) and printed as JSON.")
    String outputSchema;

    @Parameters(paramLabel = "TASK", arity = "0..*",
            description = "The task, the user's message (several words are joined with spaces).")
    List<String> task;

    @Mixin
    TemporalOptions temporal;

    @Option(names = "--detach", description = "With --temporal: start the durable run, print its workflow id, return.")
    boolean detach;

    @Option(names = "--follow", paramLabel = "ID", description = "With --temporal: follow the durable run with this"
            + " workflow id, from its start (no TASK).")
    String follow;

    @Override
    public Integer call() {
        if (temporal.given() || detach || follow != null) {
            return TemporalRun.run(root, spec, options, temporal, output, detach, follow, task);
        }
        if (task == null || task.isEmpty()) {
            return usage("Missing required parameter: 'TASK'");
        }
        Settings settings;
        Provider chosen;
        StreamOptions streamOptions;
        try {
            settings = resolve();
            streamOptions = DialectOption.streamOptions(options.dialect, settings.model());
            chosen = ModelOptions.provider(settings);
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
        try (Provider closing = chosen;
             RunSession stored = options.session == null ? null
                     : RunSession.open(options.session, settings.sessionStore())) {
            return run(settings, closing, stored, String.join(" ", task), streamOptions);
        } catch (UsageException e) {
            return usage(e.getMessage());
        } catch (SessionStoreException e) {
            // The store failed once the session was open (its database server went away): say
            // where, in words, as for a store that cannot be opened; the run's request is not stored.
            root.stderr.println(spec.qualifiedName() + ": the session could not be read or stored: "
                    + BellowsCommand.oneLine(settings.sessionStore() == null ? e.getMessage()
                    : settings.sessionStore().explain(e)));
            root.stderr.flush();
            return 1;
        }
    }

    Settings resolve() throws UsageException {
        if (String.join(" ", task).isBlank()) {
            throw new UsageException("TASK is empty: say what the agent should do, e.g. bellows run \"list the files\"");
        }
        return options.resolve(root.host, output, outputSchema, true);
    }

    // --- running ---

    /**
     * Starts the MCP servers (in parallel), tells the user about those that failed, runs the
     * agent with the others' tools, and stops every server and its processes when the run ends,
     * however it ends (Ctrl-C included).
     */
    private int run(Settings settings, Provider chosen, RunSession stored, String text, StreamOptions streamOptions)
            throws UsageException {
        return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr, settings.apiKey(),
                registry -> run(settings, chosen, stored, text, streamOptions, registry));
    }

    private int run(Settings settings, Provider chosen, RunSession stored, String text, StreamOptions streamOptions,
                    ToolRegistry registry) {
        AgentRunner runner = new AgentRunner(root, spec.qualifiedName(), settings.jsonl(), settings.apiKey());
        RetryPolicy retryPolicy = RetryPolicy.defaults().withMaxRetries(settings.maxRetries());
        ConversationMemory memory = stored == null ? memory(settings) : memory(settings, stored.session());
        // A stored session keeps a run cancelled with Ctrl-C, marked as interrupted, as chat does.
        InterruptedTurn interrupted = stored == null ? null : new InterruptedTurn(memory, text);
        AgentListener shown = runner.listener();
        AgentListener listener = stored == null ? shown : stored.keepingPlans(event -> {
            shown.onEvent(event);
            interrupted.onEvent(event);
        });
        DefaultAgent.Builder builder = DefaultAgent.builder();
        if (settings.answerSchema() != null) {
            builder.answerSchema(settings.answerSchema());
        }
        DefaultAgent agent = builder
                .toolMode(settings.toolMode())
                .provider(chosen)
                .model(settings.model())
                .streamOptions(streamOptions)
                .instructions(settings.system())
                .toolRegistry(registry)
                .memory(memory)
                .maxIterations(settings.maxIterations())
                .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                .retryPolicy(retryPolicy)
                .listener(listener)
                .build();
        if (settings.maxContextTokens() != Integer.MAX_VALUE) {
            // The system message and the task are never left out: a budget below them cannot work.
            long fixed = (long) agent.systemMessage().map(memory::tokenCount).orElse(0)
                    + memory.tokenCount(Message.user(text));
            if (settings.maxContextTokens() < fixed) {
                return usage("--max-context-tokens: must be at least " + fixed + " here: the system prompt and the"
                        + " task alone take " + fixed + " tokens, and neither is ever left out (leave room for the"
                        + " conversation and the answer too)");
            }
        }
        if (stored != null) {
            stored.start(agent, settings.provider(), settings.model(), settings.toolMode());
        }
        return runner.run(agent, text);
    }

    /**
     * The run's memory: whole turns, pruned to {@code --max-context-tokens} with the model's own
     * tokenizer where Bellows has it (OpenAI's encodings), else the documented estimate.
     */
    static ConversationMemory memory(Settings settings) {
        return memory(settings, new InMemoryMemoryStore());
    }

    /** The same, keeping its turns in that store (a session's). */
    static ConversationMemory memory(Settings settings, MemoryStore store) {
        ConversationMemory.Builder builder = ConversationMemory.builder()
                .store(store)
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
