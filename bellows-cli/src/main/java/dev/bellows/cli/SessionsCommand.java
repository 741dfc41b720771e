package dev.bellows.cli;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionNames;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@code delete NAME} removes one. Reading never creates the data directory.
 */
@Command(name = "sessions",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Lists the stored sessions (bellows chat or run --session NAME): name, turns, last update, model.",
                "Sessions live in the data directory: --data-dir DIR, else env BELLOWS_DATA_DIR, else "
                        + "$XDG_DATA_HOME/bellows, else ~/.local/share/bellows."},
        subcommands = {SessionsCommand.Show.class, SessionsCommand.Delete.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:done",
                "1:the session is in use by another process, or the data directory cannot be read",
                "2:usage error: a bad option, a bad or unknown session name"})
final class SessionsCommand implements Callable<Integer> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    @ParentCommand
    BellowsCommand root;

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Where sessions are kept. Env BELLOWS_DATA_DIR; default $XDG_DATA_HOME/bellows, else ~/.local/share/bellows.")
    String dataDir;

    @Override
    public Integer call() {
        return withStore(spec, root, dataDir, null, (store, dir) -> {
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

        @Override
        public Integer call() {
            return withStore(spec, parent.root, dataDir != null ? dataDir : parent.dataDir, name, (store, dir) -> {
                Optional<SessionInfo> found = store == null ? Optional.empty() : store.find(name);
                Optional<List<List<Message>>> turns = store == null ? Optional.empty() : store.turns(name);
                if (found.isEmpty() || turns.isEmpty()) {
                    return usage(spec, parent.root, "no session \"" + name + "\" in " + dir + " (bellows sessions lists them)");
                }
                write(parent.root, render(found.get(), turns.get()));
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

        @Override
        public Integer call() {
            return withStore(spec, parent.root, dataDir != null ? dataDir : parent.dataDir, name, (store, dir) -> {
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

    /** What a subcommand does with the store (null when the data directory holds no database yet). */
    @FunctionalInterface
    private interface StoreWork {
        int run(SqliteSessionStore store, Path directory) throws IOException;
    }

    private static int withStore(CommandSpec spec, BellowsCommand root, String dataDirFlag, String name, StoreWork work) {
        Path dir;
        try {
            if (name != null) {
                try {
                    SessionNames.check(name);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("NAME: " + e.getMessage());
                }
            }
            dir = DataDirectory.resolve(root.host, dataDirFlag);
        } catch (UsageException e) {
            return usage(spec, root, e.getMessage());
        }
        try {
            if (!Files.exists(dir.resolve("sessions.db"))) {
                return work.run(null, dir);     // nothing stored yet: do not create files to say so
            }
            try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
                return work.run(store, dir);
            }
        } catch (SessionInUseException e) {
            return failure(spec, root, e.getMessage());
        } catch (SessionStoreException e) {
            return failure(spec, root, e.getMessage());
        } catch (IOException e) {
            return failure(spec, root, "cannot write to standard output: " + e.getMessage());
        }
    }

    static String render(SessionInfo info, List<List<Message>> turns) {
        StringBuilder out = new StringBuilder();
        field(out, "session", info.name());
        field(out, "created", TIME.format(info.created()));
        field(out, "updated", TIME.format(info.updated()));
        // A turn that begins with the user's message begins a request (see SessionInfo.requests).
        long requests = turns.stream().filter(turn -> turn.getFirst().role() == Role.USER).count();
        field(out, "requests", requests + " (" + turns.size() + (turns.size() == 1 ? " step, " : " steps, ")
                + turns.stream().mapToInt(List::size).sum() + " messages)");
        info.metadata().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .forEach(entry -> field(out, entry.getKey(), entry.getValue()));
        if (!info.plan().steps().isEmpty()) {
            out.append("plan:\n");
            info.plan().toChecklist().lines().forEach(line -> out.append("  ").append(printable(line)).append('\n'));
        }
        int request = 0;
        int step = 0;
        for (int i = 0; i < turns.size(); i++) {
            if (request == 0 || turns.get(i).getFirst().role() == Role.USER) {
                request++;
                step = 0;
            }
            step++;
            out.append("\n--- request ").append(request).append(", step ").append(step).append(" ---\n");
            for (Message message : turns.get(i)) {
                out.append('[').append(message.role().wireName()).append("]\n");
                String content = message.content();
                out.append(printable(content));
                if (!content.endsWith("\n")) {
                    out.append('\n');
                }
            }
        }
        return out.toString();
    }

    private static void field(StringBuilder out, String label, String value) {
        out.append(String.format("%-11s%s%n", printable(label) + ":", printable(value)));
    }

    /** Control characters (an escape sequence in a stored answer) shown, not sent to the terminal. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (c == '\n' || c == '\t' || !Character.isISOControl(c)) {
                out.appendCodePoint(c);
            } else {
                out.append(String.format("\\u%04x", c));
            }
        });
        return out.toString();
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
