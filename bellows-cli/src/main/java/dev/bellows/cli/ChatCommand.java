package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.internal.ToolPattern;
import dev.bellows.agent.WaitingCall;
import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows chat [options]}: a conversation with the agent loop, one run per line the
 * user enters, all in one {@link Session} (a stored one with {@code --session}, so the chat
 * resumes after a restart). The model options are {@code bellows run}'s ({@link ModelOptions}).
 *
 * <p>On a terminal it uses JLine (editing, history in the data directory, multi-line input)
 * and renders events live with ANSI (on standard error when standard output is piped); with
 * input from a script it reads line by line and writes plain text: answers on standard
 * output, progress on standard error. {@link ChatIo#open} says which is chosen when.
 */
@Command(name = "chat",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Talks with the agent: each line you enter is one run of the agent loop in the same conversation.",
                "",
                "Slash commands: /help, /tools, /plan, /clear, /model [NAME], /session, /exit. A question's"
                        + " suggestions are numbered: type the number to answer with that suggestion. Ctrl-C cancels"
                        + " the current turn (it stays in the conversation, marked as interrupted); Ctrl-C twice"
                        + " at an empty prompt (or Ctrl-D, or /exit) leaves."
                        + " End a line with \\ (or press Alt-Enter) to go on to the next line.",
                "",
                "With --approve PATTERN, each call of those tools waits for your answer: y runs it, a runs it and"
                        + " every later call of that tool in this chat, n (optionally followed by a reason) does not run"
                        + " it and tells the model so; Ctrl-C denies and cancels the turn.",
                "",
                "Settings as for bellows run (flag, else environment variable, else config file, else default)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:the chat ended (/exit, Ctrl-D, the end of the input); from a script: every turn succeeded",
                "1:from a script (input not a terminal): a turn failed or a slash command was unknown"
                        + " (the later lines still ran); the session store cannot be opened or read, or the session"
                        + " is in use",
                "2:usage or configuration error (nothing was sent to a model)",
                "130:Ctrl-C in a script's turn (the rest is not run), or Ctrl-C twice at the prompt of a"
                        + " plain chat (dumb terminal)"})
final class ChatCommand implements Callable<Integer> {

    static final String HELP = """
            /help           this list
            /tools          the tools the agent can call
            /plan           the current plan
            /clear          forget the conversation and the plan (a stored session too)
            /model [NAME]   the model; with NAME, use that model from the next turn on
            /session        the session: its name and number of requests
            /exit           leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)
            A number answers the last question with that suggestion.""";

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Mixin
    ModelOptions options;

    /** Traces and metrics, when an OpenTelemetry exporter is configured (cli.md "Traces and metrics"). */
    private Telemetry telemetry = Telemetry.OFF;

    @Override
    public Integer call() {
        try {
            dev.bellows.a2a.client.RemoteAgentConfig remote = options.remoteAgent(root.host);
            if (remote != null) {
                return RemoteAgentRun.chat(root, options, remote);
            }
        } catch (UsageException e) {
            usage(e.getMessage());
            return e.status();
        }
        Settings settings;
        Provider chosen;
        StreamOptions streamOptions;
        try {
            settings = options.resolve(root.host, null, null, false);
            streamOptions = DialectOption.streamOptions(options.dialect(root.host), settings.model());
            chosen = ModelOptions.provider(settings);
        } catch (UsageException e) {
            usage(e.getMessage());
            return e.status();
        }
        // Closed last: what the chat's spans and metrics hold is exported once everything has ended.
        try (Telemetry started = telemetry = Telemetry.start(root.host, root.stderr);
             Provider closing = chosen;
             RunSession stored = options.session == null ? null
                     : RunSession.open(options.session, settings.sessionStore())) {
            // The chat's line reader exists once the servers are up: questions before that are declined.
            java.util.concurrent.atomic.AtomicReference<Elicitations.Lines> lines = new java.util.concurrent.atomic.AtomicReference<>();
            dev.bellows.mcp.McpClientOptions client = dev.bellows.mcp.McpClientOptions.DEFAULTS;
            if (!settings.mcpServers().isEmpty()) {
                Elicitations.Mode mode = Elicitations.mode(root.host, options.elicitation, options.configFile(root.host),
                        McpSetup.personAtTerminal(root));
                client = McpSetup.clientOptions(root, spec.qualifiedName(), options.dataDir, McpSetup.browser(root.host),
                        false, Elicitations.handler(mode, lines::get, root.stderr));
            }
            return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr,
                    settings.apiKey(), telemetry.mcp(client), registry -> chat(settings, closing, stored, streamOptions, registry, lines));
        } catch (UsageException e) {
            usage(e.getMessage());
            return e.status();
        } catch (dev.bellows.memory.SessionStoreException e) {
            // The session's store went away during the chat (a database server stopped): say where, and end.
            root.stderr.println(spec.qualifiedName() + ": the session could not be read or stored: "
                    + BellowsCommand.oneLine(settings.sessionStore() == null ? e.getMessage()
                    : settings.sessionStore().explain(e)));
            root.stderr.flush();
            return 1;
        }
    }

    private int chat(Settings settings, Provider provider, RunSession stored, StreamOptions streamOptions,
                     ToolRegistry registry, java.util.concurrent.atomic.AtomicReference<Elicitations.Lines> lines)
            throws UsageException {
        ConversationMemory memory = stored == null ? RunCommand.memory(settings)
                : RunCommand.memory(settings, stored.session());
        Session session = stored == null ? new Session(memory) : new Session(memory, stored.session());
        if (stored != null) {
            stored.checkWaitingToolMode(settings.toolMode());
        }
        java.nio.file.Path history = options.dataDirectory(root.host).resolve("chat_history");
        // the tools the user approves for the rest of the chat ("a"): for its sub-agents too, built before it begins
        Set<String> always = ConcurrentHashMap.newKeySet();
        try (AgentTree agents = new AgentTree(settings, provider, streamOptions, registry, root.host::envValue).traced(telemetry);
             ChatIo io = ChatIo.open(root, history)) {
            if (!settings.approve().isEmpty()) {
                List<ToolPattern> approve = settings.approve().stream().map(ToolPattern::of).toList();
                agents.approving(call -> Conversation.needsApproval(always, approve, call));
            }
            // A server's question is asked on the chat's own line reader, with the turn's spinner stopped.
            AtomicReference<Runnable> quiet = new AtomicReference<>(() -> { });
            lines.set(Elicitations.chat(io, () -> quiet.get().run()));
            if (settings.configuredAgent() != null && settings.configuredAgent().workflow()) {
                if (stored != null) {
                    throw new UsageException("--session: " + settings.configuredAgent().name() + " is a workflow,"
                            + " which keeps no conversation: chat with it without --session");
                }
                agents.workflow(settings.configuredAgent(), event -> { });      // its problems: usage errors now
            } else if (settings.configuredAgent() != null) {
                // checked before the first turn: a problem of the config's agents is a usage error
                agents.configure(DefaultAgent.builder(), settings.configuredAgent());
            }
            Conversation conversation = new Conversation(settings, provider, streamOptions, registry, session, stored,
                    io, settings.apiKey(), telemetry, agents, always);
            conversation.quiet = quiet;
            return conversation.loop();
        }
    }

    /** The input ended at a question about a waiting call: the chat ends, the run waits on. */
    private static final class EndOfInput extends RuntimeException {
        EndOfInput() {
            super(null, null, false, false);
        }
    }

    /** The chat's state between lines: the agent, the session, the last question's suggestions. */
    private static final class Conversation {
        private final Settings settings;
        private final Provider provider;
        private final StreamOptions streamOptions;
        private final ToolRegistry registry;
        private final Session session;
        private final RunSession stored;
        private final ChatIo io;
        private final ApiKey key;
        private final Telemetry telemetry;
        /** The config file's agents, for a chat with --agent NAME. */
        private final AgentTree agents;
        private final AtomicReference<AgentListener> renderer = new AtomicReference<>(event -> { });
        private final List<String> askedSuggestions = new ArrayList<>();
        /** The tools whose calls the user approved for the rest of the chat ({@code a}): SERVER/TOOL. */
        private final Set<String> always;
        private final List<ToolPattern> approve;
        private List<String> suggestions = List.of();
        private String model;
        private DefaultAgent agent;
        /** The workflow a chat with --agent WORKFLOW runs for each message, or null. */
        private final dev.bellows.agent.Agent workflow;
        /** Whether a turn failed or a command was unknown: a script then ends with status 1. */
        private boolean failed;
        /** Stops the running turn's spinner before a server's question is asked. */
        private AtomicReference<Runnable> quiet = new AtomicReference<>(() -> { });

        Conversation(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
                     Session session, RunSession stored, ChatIo io, ApiKey key, Telemetry telemetry,
                     AgentTree agents, Set<String> always) {
            this.always = always;
            this.settings = settings;
            this.provider = provider;
            this.streamOptions = streamOptions;
            this.registry = registry;
            this.session = session;
            this.stored = stored;
            this.io = io;
            this.key = key;
            this.telemetry = telemetry;
            this.agents = agents;
            this.model = settings.configuredAgent() != null && settings.configuredAgent().model() != null
                    ? settings.configuredAgent().model() : settings.model();
            this.approve = settings.approve().stream().map(ToolPattern::of).toList();
            boolean runsWorkflow = settings.configuredAgent() != null && settings.configuredAgent().workflow();
            try {
                this.workflow = runsWorkflow ? agents.workflow(settings.configuredAgent(),
                        event -> renderer.get().onEvent(event)) : null;
            } catch (UsageException e) {
                throw new IllegalStateException(e.getMessage());    // checked before the chat began
            }
            this.agent = agent();
        }

        /** Whether a call of the chat's agents must be asked about: --approve names it, and "a" did not approve it. */
        private boolean needsApproval(dev.bellows.tool.ToolCall call) {
            return needsApproval(always, approve, call);
        }

        static boolean needsApproval(Set<String> always, List<ToolPattern> approve, dev.bellows.tool.ToolCall call) {
            return !always.contains(call.serverName() + "/" + call.toolName())
                    && approve.stream().anyMatch(pattern -> pattern.matches(call));
        }

        private DefaultAgent agent() {
            DefaultAgent.Builder builder = DefaultAgent.builder();
            if (!approve.isEmpty()) {
                builder.requireApproval(this::needsApproval);
            }
            telemetry.instrument(builder)
                    .toolMode(settings.toolMode())
                    .provider(provider)
                    .model(model)
                    .streamOptions(streamOptions)
                    .instructions(settings.system())
                    .toolRegistry(registry)
                    .maxIterations(settings.maxIterations())
                    .maxToolResultTokens(settings.maxToolResultTokens())
                    .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                    .retryPolicy(RetryPolicy.defaults().withMaxRetries(settings.maxRetries()))
                    .listener(event -> {
                        if (event instanceof StreamEvent.ToolCallEnd end && end.call() instanceof ToolCall call
                                && call.toolName().equals("ask_question")) {
                            askedSuggestions.clear();
                            for (JsonNode suggestion : call.arguments().path("suggestions")) {
                                askedSuggestions.add(suggestion.asString());
                            }
                        }
                        renderer.get().onEvent(event);
                    });
            if (stored != null) {
                builder.listener(stored.keepingSubAgents());
            }
            if (settings.configuredAgent() != null && !settings.configuredAgent().workflow()) {
                try {
                    agents.configure(builder, settings.configuredAgent()).model(model);
                } catch (UsageException e) {
                    throw new IllegalStateException(e.getMessage());    // checked before the chat began
                }
            }
            DefaultAgent built = builder.build();
            if (stored != null) {
                stored.start(built, settings.provider(), model, settings.toolMode(), settings.remembered());
            }
            return built;
        }

        /** Reads and answers until the end; the exit status (see the command's exit codes). */
        int loop() {
            PrintWriter out = io.out();
            if (stored != null && !session.memory().turns().isEmpty()) {
                out.println("(session " + stored.session().name() + ": " + requests(session.memory().turns())
                        + " so far)");
                out.flush();
            }
            try {
                if (!session.waiting().isEmpty()) {
                    io.progress().println("(the last request waits for your decision on its tool calls)");
                    io.progress().flush();
                    if (!decide(session.waiting()) && io.script()) {
                        return 130;
                    }
                } else if (!carryOnDecided() && io.script()) {
                    return 130;
                }
            } catch (EndOfInput e) {
                return io.script() && failed ? 1 : 0;
            } catch (IllegalStateException e) {
                failed = true;      // a damaged waiting run: said, and the chat goes on
                io.progress().println(BellowsCommand.oneLine(e.getMessage()));
                io.progress().flush();
            }
            boolean interruptedOnce = false;
            while (true) {
                ChatIo.Input input = io.read(io.color() ? MarkdownText.BOLD + "> " + MarkdownText.RESET : "> ");
                if (input instanceof ChatIo.End) {
                    return io.script() && failed ? 1 : 0;
                }
                if (input instanceof ChatIo.Interrupt interrupt) {
                    if (interrupt.empty() && interruptedOnce) {
                        return 0;
                    }
                    interruptedOnce = interrupt.empty();
                    if (interrupt.empty()) {
                        out.println("(Ctrl-C again, /exit or Ctrl-D to leave)");
                        out.flush();
                    }
                    continue;
                }
                interruptedOnce = false;
                String text = ((ChatIo.Line) input).text().strip();
                if (text.isEmpty()) {
                    continue;
                }
                if (text.startsWith("/")) {
                    if (!command(text)) {
                        return io.script() && failed ? 1 : 0;
                    }
                    continue;
                }
                if (text.matches("\\d{1,3}") && !suggestions.isEmpty()) {
                    int choice = Integer.parseInt(text);
                    if (choice >= 1 && choice <= suggestions.size()) {
                        text = suggestions.get(choice - 1);
                        out.println("(answering: " + Shown.text(text) + ")");
                    }
                }
                boolean went;
                try {
                    went = turn(text);
                } catch (EndOfInput e) {
                    return io.script() && failed ? 1 : 0;    // the run waits on, for the next chat
                }
                if (Interrupts.TERMINATED.get()) {
                    return 130; // SIGTERM cancelled the turn: the chat ends (main says 143)
                }
                if (!went && io.script()) {
                    // Ctrl-C stops a script, as it stops sqlite3 or bash reading one: not only this turn
                    io.progress().println("(the lines after it are not run)");
                    io.progress().flush();
                    return 130;
                }
            }
        }

        /**
         * One run of the agent in the session, shown as it goes; false when Ctrl-C cancelled it
         * (a person's chat goes on however it ends).
         */
        private boolean turn(String text) {
            askedSuggestions.clear();
            suggestions = List.of();
            AgentResult result;
            try {
                result = follow(() -> workflow != null ? workflow.run(text, session) : agent.run(text, session),
                        new InterruptedTurn(session.memory(), text));
            } catch (IllegalStateException e) {
                failed = true;
                io.progress().println(BellowsCommand.oneLine(e.getMessage()));
                io.progress().flush();
                return true;
            }
            if (!answered(result)) {
                return false;
            }
            if (result.reason() == LoopEndReason.INTERRUPTED) {
                return handedQuestion(result.waiting()) || decide(result.waiting());
            }
            return true;
        }

        /**
         * Shows the question of a remote agent a handoff gave the conversation to, which the next
         * line answers as the session's next run (no run of the session waits: the agent does);
         * false when the run stopped otherwise.
         */
        private boolean handedQuestion(List<WaitingCall> waiting) {
            if (session.hasWaitingRun() || waiting.size() != 1 || AgentRunner.question(waiting.getFirst()) == null) {
                return false;
            }
            PrintWriter out = io.out();
            out.print(MarkdownText.render(Shown.text(AgentRunner.question(waiting.getFirst())), io.colorAnswers(),
                    io.answersWidth()));
            out.flush();
            return true;
        }

        /**
         * Asks about each call a stopped run waits on, then carries the run on (and again, while
         * it stops at more); false when Ctrl-C cancelled it. At the end of the input the run stays
         * waiting, stored with a session, for the next chat or {@code bellows run --approve-call}.
         */
        private boolean decide(List<WaitingCall> waiting) {
            while (true) {
                List<Decision> decisions = new ArrayList<>();
                for (WaitingCall call : waiting) {
                    String tool = call.serverName() + "/" + call.toolName();
                    String question = AgentRunner.question(call);
                    if (question != null) {
                        Decision answer = answer(call, question);
                        if (answer == null) {
                            return cancelWaiting();
                        }
                        decisions.add(answer);
                    } else if (call.kind() != WaitingCall.Kind.APPROVAL) {
                        decisions.add(Decision.deny(call.id(), "nobody here can carry it out"));
                    } else if (always.contains(tool)) {
                        io.progress().println("(approved: " + Shown.text(tool) + " is approved for this chat)");
                        decisions.add(Decision.approve(call.id()));
                    } else {
                        Decision decision = ask(call);
                        if (decision == null) {
                            return cancelWaiting();
                        }
                        decisions.add(decision);
                    }
                }
                io.progress().flush();
                AgentResult result;
                try {
                    result = follow(() -> agent.resume(session, decisions), null);
                } catch (IllegalStateException | IllegalArgumentException e) {
                    failed = true;      // nothing ran: the run still waits, for a chat or run that has the tool
                    io.progress().println(BellowsCommand.oneLine(e instanceof dev.bellows.agent.MissingToolException
                            missing ? McpSetup.missingTool(missing, "chat") : e.getMessage()));
                    io.progress().flush();
                    return true;
                }
                if (result.reason() == LoopEndReason.CANCELLED && !session.waiting().isEmpty()) {
                    // Ctrl-C while an approved call ran: what ran is kept; the rest is given up
                    agent.cancelWaiting(session, "the user pressed Ctrl-C");
                }
                if (!answered(result)) {
                    return false;
                }
                if (result.reason() != LoopEndReason.INTERRUPTED) {
                    return true;
                }
                waiting = result.waiting();
            }
        }

        /**
         * Carries on a waiting run whose calls were all decided already (a resume cut short by a
         * killed process); true when there was none. False when Ctrl-C cancelled it.
         */
        private boolean carryOnDecided() {
            AgentResult result;
            try {
                result = follow(() -> agent.resume(session, List.of()), null);
            } catch (IllegalStateException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("no run of this session waits")) {
                    return true;
                }
                throw e;
            } catch (dev.bellows.agent.MissingToolException e) {
                failed = true;      // approved before, and its tool is not here: the run waits on
                io.progress().println(McpSetup.missingTool(e, "chat"));
                io.progress().flush();
                return true;
            }
            io.progress().println("(the last request's decided calls were carried on)");
            if (!answered(result)) {
                return false;
            }
            return result.reason() != LoopEndReason.INTERRUPTED || decide(result.waiting());
        }

        /** Gives the waiting run up (Ctrl-C at the question): denied, nothing runs, nothing is sent. */
        private boolean cancelWaiting() {
            TextRenderer shown = renderer(null);
            try {
                agent.cancelWaiting(session, "the user pressed Ctrl-C instead of answering");
            } finally {
                shown.close();
                renderer.set(event -> { });
            }
            io.progress().println("(cancelled: the calls were denied, and nothing more was done)");
            io.progress().flush();
            return false;
        }

        /**
         * A remote sub-agent's question, shown as an answer is; the next line answers it. Null
         * for Ctrl-C; at the end of the input, the chat ends (the run stays waiting).
         */
        private Decision answer(WaitingCall call, String question) {
            PrintWriter out = io.out();
            out.print(MarkdownText.render(Shown.text(question), io.colorAnswers(), io.answersWidth()));
            out.flush();
            while (true) {
                ChatIo.Input input = io.read(io.color() ? MarkdownText.BOLD + "> " + MarkdownText.RESET : "> ");
                switch (input) {
                    case ChatIo.Interrupt interrupt -> {
                        return null;
                    }
                    case ChatIo.End end -> throw new EndOfInput();
                    case ChatIo.Line line -> {
                        if (!line.text().isBlank()) {
                            return Decision.respond(call.id(), line.text().strip());
                        }
                    }
                }
            }
        }

        /**
         * The user's decision on one call: {@code y}, {@code a} (also every later call of that
         * tool in this chat), {@code n} with an optional reason; null for Ctrl-C. At the end of
         * the input, the chat ends (the run stays waiting).
         */
        private Decision ask(WaitingCall call) {
            PrintWriter progress = io.progress();
            String tool = call.serverName() + "/" + call.toolName();
            progress.println("tool call " + Shown.text(tool) + " (" + call.id() + ") waits for your approval:");
            progress.println(Shown.text(indented(call.arguments())).indent(2).stripTrailing());
            progress.flush();
            while (true) {
                ChatIo.Input input = io.read("run it? y = yes, a = always for " + call.toolName()
                        + ", n [reason] = no > ");
                switch (input) {
                    case ChatIo.Interrupt interrupt -> {
                        return null;
                    }
                    case ChatIo.End end -> throw new EndOfInput();
                    case ChatIo.Line line -> {
                        String answer = line.text().strip();
                        String word = answer.split("\\s+", 2)[0].toLowerCase(java.util.Locale.ROOT);
                        switch (word) {
                            case "y", "yes" -> {
                                return Decision.approve(call.id());
                            }
                            case "a", "always" -> {
                                always.add(tool);
                                return Decision.approve(call.id());
                            }
                            case "n", "no" -> {
                                return Decision.deny(call.id(), answer.length() > word.length()
                                        ? answer.substring(word.length()).strip() : "");
                            }
                            default -> {
                                progress.println("(answer y, a or n, optionally followed by a reason)");
                                progress.flush();
                            }
                        }
                    }
                }
            }
        }

        /** The arguments as indented JSON, long strings cut. */
        private static String indented(JsonNode arguments) {
            JsonNode shown = arguments.deepCopy();
            cutStrings(shown);
            try {
                return PRETTY.writerWithDefaultPrettyPrinter().writeValueAsString(shown);
            } catch (JacksonException e) {
                return arguments.toString();
            }
        }

        /** Strings longer than this are cut where the arguments are shown. */
        private static final int LONGEST_SHOWN = 300;
        private static final ObjectMapper PRETTY = Jackson.JSON;

        private static void cutStrings(JsonNode node) {
            if (node instanceof ObjectNode object) {
                object.properties().forEach(entry -> {
                    if (entry.getValue().isString() && entry.getValue().asString().length() > LONGEST_SHOWN) {
                        entry.setValue(StringNode.valueOf(AgentRunner.cut(entry.getValue().asString(), LONGEST_SHOWN)));
                    } else {
                        cutStrings(entry.getValue());
                    }
                });
            } else if (node instanceof ArrayNode array) {
                for (int i = 0; i < array.size(); i++) {
                    if (array.get(i).isString() && array.get(i).asString().length() > LONGEST_SHOWN) {
                        array.set(i, StringNode.valueOf(AgentRunner.cut(array.get(i).asString(), LONGEST_SHOWN)));
                    } else {
                        cutStrings(array.get(i));
                    }
                }
            }
        }

        /** The renderer of one run's events, with {@code also} (or nothing) besides. */
        private TextRenderer renderer(AgentListener also) {
            TextRenderer shown = new TextRenderer(io.progress(), io.ansi(), io.color(), io.width(), io.height())
                    .followSize(() -> new int[] {io.width(), io.height()});
            quiet.set(shown::pauseSpinner);
            renderer.set(also == null ? shown : event -> {
                shown.onEvent(event);
                also.onEvent(event);
            });
            return shown;
        }

        /**
         * Follows one run of the agent in the session, shown as it goes, Ctrl-C cancelling it;
         * its result. {@code interrupted}, when given, keeps a cancelled request in the conversation.
         */
        private AgentResult follow(Supplier<AgentRun> start, InterruptedTurn interrupted) {
            TextRenderer shown = renderer(interrupted);
            AgentResult result;
            AgentRun run;
            try {
                run = start.get();
            } catch (RuntimeException e) {
                shown.close();
                renderer.set(event -> { });
                throw e;
            }
            try (AutoCloseable interrupt = io.onInterrupt(run::cancel);
                 AutoCloseable resize = io.onResize(shown::resized)) {
                result = run.await();
            } catch (Exception e) { // closing the interrupt handler
                result = run.await();
            } finally {
                shown.close();
                renderer.set(event -> { });
            }
            return result;
        }

        /** Shows how a run ended; false when Ctrl-C cancelled it. */
        private boolean answered(AgentResult result) {
            PrintWriter progress = io.progress();
            PrintWriter out = io.out();
            LoopEndReason reason = result.reason();
            if (reason.successful()) {
                out.print(MarkdownText.render(Shown.text(result.result()), io.colorAnswers(), io.answersWidth()));
                if (reason == LoopEndReason.ASK_QUESTION && !askedSuggestions.isEmpty()) {
                    suggestions = List.copyOf(askedSuggestions);
                    for (int i = 0; i < suggestions.size(); i++) {
                        out.println("  " + (i + 1) + ". " + Shown.text(suggestions.get(i)));
                    }
                }
            } else if (reason == LoopEndReason.CANCELLED) {
                progress.println("(cancelled: the request stays in the conversation, marked as interrupted)");
            } else if (reason == LoopEndReason.INTERRUPTED) {
                // the questions follow
            } else {
                failed = true;
                String line = reason.wireName() + ": " + BellowsCommand.oneLine(result.result());
                progress.println(Shown.text(key == null ? line : key.redact(line)));
            }
            progress.flush();
            out.flush();
            return reason != LoopEndReason.CANCELLED;
        }

        /** One row of the terminal at most (when answers go to one). */
        private String fit(String line) {
            int width = io.answersWidth();
            return width <= 1 ? line : TextRenderer.cut(line, width - 1);
        }

        /** A slash command; false for /exit. */
        private boolean command(String line) {
            PrintWriter out = io.out();
            String[] words = line.split("\\s+", 2);
            switch (words[0]) {
                case "/exit", "/quit" -> {
                    return false;
                }
                case "/help" -> out.print(help(io.answersWidth()));
                case "/tools" -> {
                    java.util.Map<String, String> tools = new java.util.LinkedHashMap<>();
                    for (Tool tool : BuiltinTools.all()) {
                        tools.put(tool.name(), TextRenderer.summary(tool.description()));
                    }
                    for (RegisteredTool tool : registry.tools()) {
                        String server = ToolCall.LOCAL_SERVER.equals(tool.serverName()) ? "" : tool.serverName() + ".";
                        tools.put(server + tool.tool().name(), TextRenderer.summary(tool.tool().description()));
                    }
                    int names = tools.keySet().stream().mapToInt(String::length).max().orElse(0);
                    tools.forEach((name, what) -> out.println(fit(Shown.text(name) + " ".repeat(names - name.length() + 2) + what)));
                }
                case "/plan" -> {
                    Plan plan = session.plan();
                    out.println(plan.steps().isEmpty() ? "(no plan yet)" : Shown.text(plan.toChecklist().stripTrailing()));
                }
                case "/clear" -> {
                    session.memory().clear();
                    session.plan(Plan.empty());
                    suggestions = List.of();
                    out.println("(the conversation is cleared)");
                }
                case "/model" -> {
                    if (words.length > 1 && !words[1].isBlank()) {
                        model = words[1].strip();
                        agent = agent();
                        out.println("(model: " + model + " from the next turn on)");
                    } else {
                        out.println(model + " (" + settings.provider() + ")");
                    }
                }
                case "/session" -> out.println(stored == null
                        ? requests(session.memory().turns())
                        + " (not stored: start with --session NAME to keep the conversation)"
                        : stored.session().name() + ": " + requests(session.memory().turns()));
                default -> {
                    failed = true;
                    out.flush();
                    io.progress().println("unknown command " + words[0] + "; /help lists them");
                    io.progress().flush();
                }
            }
            out.flush();
            return true;
        }
    }

    /** {@link #HELP} for a terminal {@code width} columns wide (0: as written): each text wrapped under itself. */
    static String help(int width) {
        StringBuilder text = new StringBuilder();
        for (String line : HELP.lines().toList()) {
            MarkdownText.wrap(line, line.startsWith("/") ? "/model [NAME]   ".length() : 0, width, text);
        }
        return text.toString();
    }

    /**
     * "1 request", "2 requests": what the user asked so far, each with its whole answer (a turn
     * that begins with the user's message begins one, as in {@code SessionInfo.requests}).
     */
    static String requests(List<List<Message>> turns) {
        long count = turns.stream().filter(turn -> turn.getFirst().role() == Role.USER).count();
        return count + (count == 1 ? " request" : " requests");
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
