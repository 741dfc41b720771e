package dev.bellows.cli;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.Decision;
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
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
                "1:max_iterations, circuit_breaker or error; the session store cannot be opened or read, or the"
                        + " session is in use (nothing was sent to a model)",
                "2:usage or configuration error (nothing was sent to a model)",
                "3:interrupted: tool calls wait for approval (--approve) or an answer (a sub-agent's question);"
                        + " carry the run on with --session NAME --approve-call ID / --deny-call ID / --answer-call ID=TEXT",
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

    /** Traces and metrics, when an OpenTelemetry exporter is configured (cli.md "Traces and metrics"). */
    private Telemetry telemetry = Telemetry.OFF;

    @Option(names = "--approve-call", paramLabel = "ID",
            description = "With --session NAME and no TASK (or --temporal HOST:PORT --follow ID): approve the waiting"
                    + " tool call ID (repeatable). It runs once, and the stopped run goes on without asking the model again.")
    List<String> approveCalls;

    @Option(names = "--deny-call", paramLabel = "ID",
            description = "With --session NAME and no TASK (or --temporal HOST:PORT --follow ID): deny the waiting tool"
                    + " call ID (repeatable): it does not run, and the model reads that you denied it.")
    List<String> denyCalls;

    @Option(names = "--answer-call", paramLabel = "ID=TEXT",
            description = "With --session NAME and no TASK: answer the waiting call ID (a remote sub-agent's question,"
                    + " or another call whose result comes from outside) with TEXT (repeatable); the run goes on with it.")
    List<String> answerCalls;

    @Option(names = "--deny-reason", paramLabel = "TEXT",
            description = "Why the --deny-call calls are denied: the model reads it.")
    String denyReason;

    @Parameters(paramLabel = "TASK", arity = "0..*",
            description = "The task, the user's message (several words are joined with spaces). None when"
                    + " --approve-call / --deny-call carry a stopped run on.")
    List<String> task;

    @Mixin
    TemporalOptions temporal;

    @Option(names = "--detach", description = "With --temporal: start the durable run, print its workflow id, return.")
    boolean detach;

    @Option(names = "--follow", paramLabel = "ID", description = "With --temporal: follow the durable run with this"
            + " workflow id, from its start (no TASK); with --approve-call / --deny-call, decide on the calls it waits"
            + " on and follow it on from there.")
    String follow;

    @Override
    public Integer call() {
        if (temporal.given() || detach || follow != null) {
            if (answerCalls != null) {
                return usage("--answer-call: not for a durable run (--temporal, --follow): its waiting calls wait for"
                        + " approval, decided with --approve-call / --deny-call");
            }
            return TemporalRun.run(root, spec, options, temporal, output, detach, follow, task,
                    new TemporalRun.Decisions(approveCalls, denyCalls, denyReason));
        }
        try {
            dev.bellows.a2a.client.RemoteAgentConfig remote = options.remoteAgent(root.host);
            if (remote != null) {
                return RemoteAgentRun.run(root, spec.qualifiedName(), options, remote, output, text(),
                        approveCalls != null || denyCalls != null || answerCalls != null);
            }
        } catch (UsageException e) {
            usage(e.getMessage());
            return e.status();
        }
        Settings settings;
        Provider chosen;
        StreamOptions streamOptions;
        try {
            settings = resolve();
            key = settings.apiKey();
            streamOptions = DialectOption.streamOptions(options.dialect(root.host), settings.model());
            chosen = ModelOptions.provider(settings);
        } catch (UsageException e) {
            if (e.verbatim) {
                return shown(e.getMessage());
            }
            usage(e.getMessage());
            return e.status();
        }
        // Closed last: what the run's spans and metrics hold is exported once everything has ended.
        try (Telemetry started = telemetry = Telemetry.start(root.host, root.stderr);
             Provider closing = chosen;
             RunSession stored = options.session == null ? null
                     : RunSession.open(options.session, settings.sessionStore())) {
            return run(settings, closing, stored, text(), streamOptions);
        } catch (UsageException e) {
            usage(e.getMessage());
            return e.status();
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

    /**
     * The options the printed resume command needs besides the session and the decisions: where
     * the session is kept and the config file, when flags named them (everything else the
     * session remembers, {@link RememberedSettings}).
     */
    private String resumeOptions() {
        StringBuilder options = new StringBuilder();
        if (this.options.dataDir != null) {
            options.append(" --data-dir ").append(Shell.quote(root.host.workingDirectory().resolve(this.options.dataDir)
                    .toAbsolutePath().normalize().toString()));
        }
        if (this.options.config != null) {
            options.append(" --config ").append(Shell.quote(root.host.workingDirectory().resolve(this.options.config)
                    .toAbsolutePath().normalize().toString()));
        }
        return options.toString();
    }

    private String text() {
        return task == null ? "" : String.join(" ", task);
    }

    /** Whether this carries a stopped run on (decisions, or no TASK in a session) rather than starting a task. */
    private boolean resuming() {
        return approveCalls != null || denyCalls != null || answerCalls != null || text().isBlank();
    }

    Settings resolve() throws UsageException {
        boolean deciding = approveCalls != null || denyCalls != null || answerCalls != null;
        String flag = approveCalls != null ? "--approve-call" : denyCalls != null ? "--deny-call" : "--answer-call";
        if (deciding && !text().isBlank()) {
            throw new UsageException(flag + ": decides on the calls a stopped run waits on, which goes on with its own"
                    + " task: give no TASK with it");
        }
        if (deciding && options.session == null) {
            throw new UsageException(flag + ": needs --session NAME, the session whose run waits");
        }
        if (denyReason != null && denyCalls == null) {
            throw new UsageException("--deny-reason: only with --deny-call ID");
        }
        if (!deciding && text().isBlank() && options.session == null) {
            throw new UsageException("TASK is empty: say what the agent should do, e.g. bellows run \"list the files\"");
        }
        decisions();
        options.carryingOn = options.session != null && resuming();
        return options.resolve(root.host, output, outputSchema, true);
    }

    /**
     * The decisions of {@code --approve-call}, {@code --deny-call} and {@code --answer-call}, in
     * that order.
     *
     * @throws UsageException for a call named twice
     */
    private List<Decision> decisions() throws UsageException {
        List<Decision> decisions = new ArrayList<>();
        Set<String> named = new LinkedHashSet<>();
        for (String id : approveCalls == null ? List.<String>of() : approveCalls) {
            if (!named.add(checkedId("--approve-call", id))) {
                throw new UsageException("--approve-call: call " + id + " is named twice", true);
            }
            decisions.add(Decision.approve(id));
        }
        for (String id : denyCalls == null ? List.<String>of() : denyCalls) {
            if (!named.add(checkedId("--deny-call", id))) {
                throw new UsageException("--deny-call: call " + id + " is named twice (a call is approved or denied,"
                        + " once)", true);
            }
            decisions.add(Decision.deny(id, denyReason == null ? "" : denyReason));
        }
        for (String answer : answerCalls == null ? List.<String>of() : answerCalls) {
            int equals = answer.indexOf('=');
            if (equals < 0) {
                throw new UsageException("--answer-call: give ID=TEXT, the call's id and its answer (e.g."
                        + " call_1_1/input=Oslo)");
            }
            String id = answer.substring(0, equals);
            if (!named.add(checkedId("--answer-call", id))) {
                throw new UsageException("--answer-call: call " + id + " is named twice (a call is decided once)", true);
            }
            decisions.add(Decision.respond(id, answer.substring(equals + 1)));
        }
        return decisions;
    }

    /** A call id as the flag gave it, checked to look like one, so that messages may name it. */
    private static String checkedId(String flag, String id) throws UsageException {
        if (!CALL_ID.matcher(id).matches()) {
            throw new UsageException(flag + ": not a tool call id (an id is like call_1_2, call_1_2/call_1_1 for a"
                    + " sub-agent's call, or the provider's own, as approval_required and the text output show them)");
        }
        return id;
    }

    private static final java.util.regex.Pattern CALL_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_.:-]{1,128}(/[A-Za-z0-9_.:-]{1,128}){0,32}");

    // --- running ---

    /**
     * Starts the MCP servers (in parallel), tells the user about those that failed, runs the
     * agent with the others' tools, and stops every server and its processes when the run ends,
     * however it ends (Ctrl-C included).
     */
    private int run(Settings settings, Provider chosen, RunSession stored, String text, StreamOptions streamOptions)
            throws UsageException {
        // A server's question stops the run's spinner before it is asked.
        java.util.concurrent.atomic.AtomicReference<AgentRunner> running = new java.util.concurrent.atomic.AtomicReference<>();
        dev.bellows.mcp.McpClientOptions client = settings.mcpServers().isEmpty() ? dev.bellows.mcp.McpClientOptions.DEFAULTS
                : McpSetup.clientOptions(root, spec.qualifiedName(), options.dataDir, McpSetup.browser(root.host), false,
                        McpSetup.elicitation(root, options.elicitation, options.configFile(root.host), () -> {
                            AgentRunner runner = running.get();
                            if (runner != null) {
                                runner.quiet();
                            }
                        }));
        return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr, settings.apiKey(),
                telemetry.mcp(client), registry -> run(settings, chosen, stored, text, streamOptions, registry, running));
    }

    private int run(Settings settings, Provider chosen, RunSession stored, String text, StreamOptions streamOptions,
                    ToolRegistry registry, java.util.concurrent.atomic.AtomicReference<AgentRunner> running) {
        AgentRunner runner = new AgentRunner(root, spec.qualifiedName(), settings.jsonl(), settings.apiKey())
                .session(options.session, resumeOptions());
        running.set(runner);
        RetryPolicy retryPolicy = RetryPolicy.defaults().withMaxRetries(settings.maxRetries());
        ConversationMemory memory = stored == null ? memory(settings) : memory(settings, stored.session());
        // A stored session keeps a run cancelled with Ctrl-C, marked as interrupted, as chat does
        // (not a resumed one: its request is the waiting run's, which stays waiting).
        InterruptedTurn interrupted = stored == null || resuming() ? null : new InterruptedTurn(memory, text);
        AgentListener shown = runner.listener();
        AgentListener listener = stored == null ? shown : stored.keepingPlans(event -> {
            shown.onEvent(event);
            if (interrupted != null) {
                interrupted.onEvent(event);
            }
        });
        DefaultAgent.Builder builder = DefaultAgent.builder();
        if (settings.answerSchema() != null) {
            builder.answerSchema(settings.answerSchema());
        }
        telemetry.instrument(builder)
                .toolMode(settings.toolMode())
                .provider(chosen)
                .model(settings.model())
                .streamOptions(streamOptions)
                .instructions(settings.system())
                .toolRegistry(registry)
                .memory(memory)
                .maxIterations(settings.maxIterations())
                .maxToolResultTokens(settings.maxToolResultTokens())
                .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                .retryPolicy(retryPolicy)
                .listener(listener);
        for (String pattern : settings.approve()) {
            builder.requireApproval(pattern);
        }
        try (AgentTree tree = new AgentTree(settings, chosen, streamOptions, registry, root.host::envValue)
                .traced(telemetry)) {
            AgentsConfig.Spec configured = settings.configuredAgent();
            if (configured != null && configured.workflow()) {
                if (stored != null) {
                    return usage("--session: " + configured.name() + " is a workflow, which keeps no conversation:"
                            + " run it without --session");
                }
                runner.agent(configured.name());
                return runner.run(tree.workflow(configured, listener), text);
            }
            if (configured != null) {
                tree.configure(builder, configured);
                runner.agent(configured.name());
            }
            DefaultAgent agent = builder.build();
            if (configured != null) {
                // the session's next run goes to the agent a handoff gave it to: its events carry that name
                agent.session().control().ifPresent(control -> runner.agent(control.agent()));
                runner.nextRunAnswers(() -> agent.session().control().isPresent() && !agent.session().hasWaitingRun());
            }
            return run(settings, stored, text, memory, agent, runner);
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
    }

    private int run(Settings settings, RunSession stored, String text, ConversationMemory memory, DefaultAgent agent,
                    AgentRunner runner) {
        if (settings.maxContextTokens() != Integer.MAX_VALUE && !resuming()) {
            // The system message and the task are never left out: a budget below them cannot work.
            long fixed = (long) agent.systemMessage().map(memory::tokenCount).orElse(0)
                    + memory.tokenCount(Message.user(text));
            if (settings.maxContextTokens() < fixed) {
                return usage("--max-context-tokens: must be at least " + fixed + " here: the system prompt and the"
                        + " task alone take " + fixed + " tokens, and neither is ever left out (leave room for the"
                        + " conversation and the answer too)");
            }
        }
        try {
            if (stored != null) {
                if (resuming()) {
                    stored.checkWaitingToolMode(settings.toolMode());   // a new task is refused naming the waiting calls
                }
                stored.start(agent, settings.provider(), settings.model(), settings.toolMode(), settings.remembered());
            }
            if (resuming()) {
                List<Decision> decisions = decisions();
                return runner.follow(() -> agent.resume(agent.session(), decisions));
            }
            return runner.run(agent, text);
        } catch (UsageException e) {
            return e.verbatim ? shown(e.getMessage()) : usage(e.getMessage());
        } catch (dev.bellows.agent.MissingToolException e) {
            // nothing ran, nothing was decided: the same command with the server works
            return shown("--approve-call: " + McpSetup.missingTool(e, "run") + " (--deny-call " + e.callId() + ")");
        } catch (IllegalArgumentException e) {
            // a decision that does not fit the waiting run: nothing ran, nothing was sent; the
            // message names calls by ids checked above, or stored ones
            return shown(decisionsFlag(e.getMessage()) + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            return refused(e);
        }
    }

    /** The API key in use, once resolved: never shown, whatever a message repeats. */
    private dev.bellows.provider.ApiKey key;

    /** A usage error whose message repeats no value but tool call ids, shown as it is (the key redacted). */
    private int shown(String message) {
        String line = BellowsCommand.oneLine(message);
        root.stderr.println(spec.qualifiedName() + ": " + (key == null ? line : key.redact(line)));
        root.stderr.flush();
        return 2;
    }

    /** The flag a refused decision came from: the one that named the call the message is about, when it names one. */
    private String decisionsFlag(String message) {
        String unknown = "no call waits with id ";
        if (message != null && message.startsWith(unknown) && denyCalls != null) {
            int end = message.indexOf(';');
            if (denyCalls.contains(message.substring(unknown.length(), end < 0 ? message.length() : end))) {
                return "--deny-call";
            }
        }
        return approveCalls != null ? "--approve-call" : denyCalls != null ? "--deny-call"
                : answerCalls != null ? "--answer-call" : "--session";
    }

    /**
     * A run the session refused before it began: nothing waits to resume (a usage error), a new
     * task while a run waits (a usage error naming the waiting calls), or a damaged waiting run
     * (status 1: the store is at fault, not the command).
     */
    private int refused(IllegalStateException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (message.contains("damaged")) {
            root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
            root.stderr.flush();
            return 1;
        }
        if (message.startsWith("no run of this session waits")) {
            return shown("--session: session " + options.session + " has no run waiting for a decision"
                    + (text().isBlank() && approveCalls == null && denyCalls == null && answerCalls == null
                    ? " (give a TASK to start one)" : ": there is nothing to approve, deny or answer"));
        }
        if (message.startsWith("a run of this session waits")) {
            String ids = message.substring(message.indexOf('(') + 1, message.indexOf(')'));
            return shown("TASK: session " + options.session + " has a run waiting for decisions on tool calls " + ids
                    + ": carry it on first, with --approve-call ID / --deny-call ID / --answer-call ID=TEXT (and no TASK)");
        }
        return usage(message);
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
