package dev.bellows.cli;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows sessions}: the stored conversations of {@code bellows run --session NAME}.
 * Lists them; {@code show NAME} prints one (settings, plan, every message);
 * {@code delete NAME} removes one. They are read where {@code run} and {@code chat} keep them:
 * {@code --session-store URL} (PostgreSQL), its variable or config key, else the data directory
 * (SQLite). Reading never creates the data directory.
 */
@Command(name = "sessions",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Lists the stored sessions (bellows chat or run --session NAME): name, turns, last update, model.",
                "Sessions live in the data directory: --data-dir DIR, else env BELLOWS_DATA_DIR, else "
                        + "$XDG_DATA_HOME/bellows, else ~/.local/share/bellows; or in PostgreSQL with --session-store"
                        + " URL (env " + SessionStoreLocation.ENV + ", config \"" + SessionStoreLocation.CONFIG_KEY
                        + "\")."},
        subcommands = {SessionsCommand.Show.class, SessionsCommand.Delete.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:done",
                "1:the session is in use by another process, or the store cannot be read (a database server that"
                        + " cannot be reached)",
                "2:usage error: a bad option, a bad or unknown session name"})
final class SessionsCommand implements Callable<Integer> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    @ParentCommand
    BellowsCommand root;

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR",
            // The paths on lines of their own: picocli would break "~/.local" after its dot.
            description = {"Where sessions are kept (SQLite). Env BELLOWS_DATA_DIR; default:", "$XDG_DATA_HOME/bellows, else",
                    "~/.local/share/bellows."})
    String dataDir;

    @Option(names = "--session-store", paramLabel = "URL",
            description = {"Sessions in a PostgreSQL database: postgresql://[USER@]HOST[:PORT]/DATABASE (as for bellows"
                    + " run). Env " + SessionStoreLocation.ENV + "; default: the data directory."})
    String sessionStore;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A config file whose \"" + SessionStoreLocation.CONFIG_KEY + "\" names the store. Env"
                    + " BELLOWS_CONFIG; default bellows.json in the working directory if present.")
    String config;

    @Override
    public Integer call() {
        return withStore(spec, root, new Where(dataDir, sessionStore, config), null, (store, dir) -> {
            List<SessionInfo> sessions = store == null ? List.of() : store.list();
            if (sessions.isEmpty()) {
                root.stderr.println("no sessions in " + dir
                        + " (bellows chat --session NAME, or bellows run --session NAME ..., starts one)");
                root.stderr.flush();
                return 0;
            }
            int width = Math.max(4, sessions.stream().mapToInt(info -> info.name().length()).max().orElse(4));
            StringBuilder out = new StringBuilder();
            // REQUESTS: what the user asked, each with the agent's whole answer; STEPS: the loop's
            // iterations that answered them (what the store calls turns).
            out.append(String.format("%-" + width + "s  %8s  %5s  %-20s  %s%n", "NAME", "REQUESTS", "STEPS", "UPDATED", "MODEL"));
            for (SessionInfo info : sessions) {
                out.append(String.format("%-" + width + "s  %8d  %5d  %-20s  %s%n", info.name(), info.requests(), info.turns(),
                        TIME.format(info.updated()), printable(info.metadata().getOrDefault(StoredSession.MODEL, "-"))));
            }
            write(root, out.toString());
            return 0;
        });
    }

    /** {@code bellows sessions show NAME}. */
    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = "Prints a session: its settings, its plan and every message of every turn.")
    static final class Show implements Callable<Integer> {

        @ParentCommand
        SessionsCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--data-dir", paramLabel = "DIR", description = "Where sessions are kept (as for bellows sessions).")
        String dataDir;

        @Parameters(paramLabel = "NAME", description = "The session.")
        String name;

        @Option(names = "--session-store", paramLabel = "URL", description = "Sessions in PostgreSQL (as for bellows sessions).")
        String sessionStore;

        @Option(names = "--config", paramLabel = "FILE", description = "A config file (as for bellows sessions).")
        String config;

        @Override
        public Integer call() {
            return withStore(spec, parent.root, parent.where(dataDir, sessionStore, config), name, (store, dir) -> {
                Optional<SessionInfo> found = store == null ? Optional.empty() : store.find(name);
                Optional<List<List<List<Message>>>> exchanges = store == null ? Optional.empty() : store.exchanges(name);
                if (found.isEmpty() || exchanges.isEmpty()) {
                    return usage(spec, parent.root, "no session \"" + name + "\" in " + dir + " (bellows sessions lists them)");
                }
                Optional<dev.bellows.memory.WaitingRun> waitingRun = store.waitingRun(name);
                List<dev.bellows.agent.WaitingCall> calls = null;
                if (waitingRun.isPresent()) {
                    try {
                        calls = dev.bellows.agent.WaitingCall.of(waitingRun.get());
                    } catch (IllegalStateException e) {
                        write(parent.root, render(found.get(), exchanges.get(), true));
                        return failure(spec, parent.root, "session \"" + name + "\": " + e.getMessage());
                    }
                }
                write(parent.root, render(found.get(), exchanges.get(), calls != null));
                if (calls != null) {
                    write(parent.root, waiting(name, calls));
                }
                return 0;
            });
        }
    }

    /** {@code bellows sessions delete NAME}. */
    @Command(name = "delete", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = "Deletes a session and its turns. Refused while another process has it open.")
    static final class Delete implements Callable<Integer> {

        @ParentCommand
        SessionsCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--data-dir", paramLabel = "DIR", description = "Where sessions are kept (as for bellows sessions).")
        String dataDir;

        @Parameters(paramLabel = "NAME", description = "The session.")
        String name;

        @Option(names = "--session-store", paramLabel = "URL", description = "Sessions in PostgreSQL (as for bellows sessions).")
        String sessionStore;

        @Option(names = "--config", paramLabel = "FILE", description = "A config file (as for bellows sessions).")
        String config;

        @Override
        public Integer call() {
            return withStore(spec, parent.root, parent.where(dataDir, sessionStore, config), name, (store, dir) -> {
                if (store == null || !store.delete(name)) {
                    return usage(spec, parent.root, "no session \"" + name + "\" in " + dir + " (bellows sessions lists them)");
                }
                parent.root.stderr.println("deleted session \"" + name + "\"");
                parent.root.stderr.flush();
                return 0;
            });
        }
    }

    // --- shared ---

    /** The flags that say where the sessions are, as given (null when not). */
    private record Where(String dataDir, String sessionStore, String config) {
    }

    /** A subcommand's flags, each falling back on this command's. */
    private Where where(String subDataDir, String subSessionStore, String subConfig) {
        return new Where(subDataDir != null ? subDataDir : dataDir,
                subSessionStore != null ? subSessionStore : sessionStore, subConfig != null ? subConfig : config);
    }

    /** What a subcommand does with the store (null when there is no database yet), named for messages. */
    @FunctionalInterface
    private interface StoreWork {
        int run(SessionStore store, String where) throws IOException;
    }

    private static int withStore(CommandSpec spec, BellowsCommand root, Where flags, String name, StoreWork work) {
        SessionStoreLocation location;
        try {
            if (name != null) {
                try {
                    SessionNames.check(name);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("NAME: " + e.getMessage());
                }
            }
            location = SessionStoreLocation.resolve(root.host, flags.sessionStore(), flags.dataDir(),
                    ConfigFile.locate(root.host, flags.config()));
        } catch (UsageException e) {
            return usage(spec, root, e.getMessage());
        }
        try {
            if (!location.mayHoldSessions()) {
                return work.run(null, location.display());     // nothing stored yet: do not create files to say so
            }
            try (SessionStore store = location.open()) {
                return work.run(store, location.display());
            }
        } catch (SessionInUseException e) {
            return failure(spec, root, e.getMessage());
        } catch (SessionStoreException e) {
            return failure(spec, root, location.explain(e));
        } catch (IOException e) {
            return failure(spec, root, "cannot write to standard output: " + e.getMessage());
        }
    }

    /**
     * The session, its requests as the store recorded them (its exchanges), each with its steps,
     * plus the one that waits for decisions, when one does (its steps are stored once it goes on),
     * and the settings the session keeps (empty ones left out).
     */
    static String render(SessionInfo info, List<List<List<Message>>> exchanges, boolean waits) {
        List<List<Message>> turns = exchanges.stream().flatMap(List::stream).toList();
        StringBuilder out = new StringBuilder();
        field(out, "session", info.name());
        field(out, "created", TIME.format(info.created()));
        field(out, "updated", TIME.format(info.updated()));
        field(out, "requests", (exchanges.size() + (waits ? 1 : 0)) + " (" + turns.size()
                + (turns.size() == 1 ? " step, " : " steps, ") + turns.stream().mapToInt(List::size).sum() + " messages"
                + (waits ? " stored; 1 request waits for decisions on its tool calls, below" : "") + ")");
        info.metadata().entrySet().stream().filter(entry -> !entry.getValue().isEmpty())
                .filter(entry -> !entry.getKey().startsWith(dev.bellows.agent.internal.SubAgentTrail.KEY_PREFIX))
                .sorted(java.util.Map.Entry.comparingByKey())
                .forEach(entry -> field(out, entry.getKey(), entry.getValue()));
        if (!info.plan().steps().isEmpty()) {
            out.append("plan:\n");
            info.plan().toChecklist().lines().forEach(line -> out.append("  ").append(printable(line)).append('\n'));
        }
        // the sub-agents' work, under the step whose calls ran it (a call's id is call_T_K, T the
        // step's number in the session, or the provider's own id in native tool mode)
        List<String> subAgentCalls = new java.util.ArrayList<>(dev.bellows.agent.internal.SubAgentTrail.calls(info.metadata()));
        int number = 0;
        for (int request = 1; request <= exchanges.size(); request++) {
            List<List<Message>> steps = exchanges.get(request - 1);
            for (int step = 1; step <= steps.size(); step++) {
                number++;
                out.append("\n--- request ").append(request).append(", step ").append(step).append(" ---\n");
                renderTurn(out, steps.get(step - 1));
                List<String> here = callsOf(steps.get(step - 1), number, subAgentCalls);
                subAgentCalls.removeAll(here);
                subAgents(out, info, here);
            }
        }
        if (!subAgentCalls.isEmpty()) {
            out.append("\n--- sub-agents of calls not stored ---\n");
            subAgents(out, info, subAgentCalls);
        }
        return out.toString();
    }

    /** Of {@code calls}, those of the step numbered {@code number} ({@code turn}), in call order. */
    private static List<String> callsOf(List<Message> turn, int number, List<String> calls) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        turn.forEach(message -> message.toolCalls().forEach(call -> ids.add(call.id())));
        return calls.stream().filter(call -> ids.contains(call) || call.startsWith("call_" + number + "_"))
                .sorted(java.util.Comparator.comparingInt(SessionsCommand::place)).toList();
    }

    /** K of {@code call_T_K}; 0 for another id. */
    private static int place(String call) {
        int at = call.lastIndexOf('_');
        try {
            return call.startsWith("call_") ? Integer.parseInt(call.substring(at + 1)) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void subAgents(StringBuilder out, SessionInfo info, List<String> calls) {
        String shown = SubAgentLog.render(info.metadata(), calls);
        if (!shown.isBlank()) {
            out.append("[sub-agents]\n").append(shown.stripTrailing()).append('\n');
        }
    }

    /** The calls the session's stopped run waits on, and how to carry it on. */
    static String waiting(String name, List<dev.bellows.agent.WaitingCall> calls) {
        StringBuilder out = new StringBuilder("\n--- waiting for approval ---\n");
        if (calls.isEmpty()) {
            out.append("(every call is decided: bellows run --session ").append(name).append(" carries the run on)\n");
            return out.toString();
        }
        for (dev.bellows.agent.WaitingCall call : calls) {
            out.append(call.id()).append("  ").append(printable(call.serverName() + "/" + call.toolName())).append("  ")
                    .append(printable(call.arguments().toString())).append('\n');
        }
        out.append("(decide: bellows run --session ").append(name).append(" --approve-call ID / --deny-call ID)\n");
        return out.toString();
    }

    private static void renderTurn(StringBuilder out, List<Message> turn) {
        for (Message message : turn) {
            out.append('[').append(message.role().wireName()).append("]\n");
            String content = message.content();
            out.append(printable(content));
            if (!content.endsWith("\n")) {
                out.append('\n');
            }
        }
    }

    private static void field(StringBuilder out, String label, String value) {
        String head = printable(label) + ":";
        out.append(head.length() < 11 ? String.format("%-11s", head) : head + " ").append(printable(value))
                .append(System.lineSeparator());
    }

    /** Control characters (an escape sequence in a stored answer) shown, not sent to the terminal; secrets redacted. */
    private static String printable(String text) {
        return Shown.text(text);
    }

    private static void write(BellowsCommand root, String text) throws IOException {
        root.stdout.write(text.getBytes(StandardCharsets.UTF_8));
        root.stdout.flush();
    }

    private static int usage(CommandSpec spec, BellowsCommand root, String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
        root.stderr.flush();
        return 2;
    }

    private static int failure(CommandSpec spec, BellowsCommand root, String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
        root.stderr.flush();
        return 1;
    }
}
