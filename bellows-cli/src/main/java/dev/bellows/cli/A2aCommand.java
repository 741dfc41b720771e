package dev.bellows.cli;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentInterface;
import dev.bellows.a2a.AgentSkill;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.a2a.client.A2aClientException;
import dev.bellows.a2a.client.RemoteAgentConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows a2a card URL} and {@code bellows a2a send URL TASK}: a remote A2A agent's card,
 * and one task sent to it with its events streamed (docs/a2a.md).
 */
@Command(name = "a2a",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Talks to a remote A2A 1.0 agent: shows its card, or sends it one task.",
                "",
                "URL is the agent's base URL, its card's URL, or the name of an agent of the config file's \"a2a\""
                        + " (its headers are sent then)."},
        subcommands = {A2aCommand.Card.class, A2aCommand.Send.class})
final class A2aCommand implements Callable<Integer> {

    static final ObjectMapper JSON = Jackson.JSON;

    @ParentCommand
    BellowsCommand root;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        root.stderr.println(spec.qualifiedName() + ": say card URL or send URL TASK (see '" + spec.qualifiedName()
                + " --help')");
        root.stderr.flush();
        return 2;
    }

    /** Options both subcommands take. */
    static class Where {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "URL",
                description = "The agent: its base URL, its card's URL, or its name in the config file's \"a2a\".")
        String url;

        @Option(names = "--header", paramLabel = "'NAME: VALUE'",
                description = "A header sent with every request (repeatable); ${VAR} in VALUE is replaced by the"
                        + " environment variable, so a token need not be on the command line. Never printed.")
        List<String> headers;

        @Option(names = "--binding", paramLabel = "jsonrpc|http-json",
                description = "The binding to use when the card offers it; default the first the card lists that Bellows speaks.")
        String binding;

        @Option(names = "--config", paramLabel = "FILE", description = "Settings as for bellows run (its \"a2a\" agents).")
        String config;

        /** The client builder for the agent named. @throws UsageException for a bad option or unknown name */
        A2aClient.Builder builder(BellowsCommand root) throws UsageException {
            ConfigFile file = ConfigFile.locate(root.host, config);
            RemoteAgentConfig named = file.remoteAgents().stream().filter(a -> a.name().equals(url)).findFirst().orElse(null);
            A2aClient.Builder builder;
            try {
                if (named != null) {
                    builder = named.client(root.host::envValue);
                } else if (url.contains("://")) {
                    A2aClient.cardUrl(url);
                    builder = A2aClient.builder(url);
                } else {
                    throw new UsageException("\"" + url + "\" is neither a URL nor an agent of the config's \"a2a\" (agents: "
                            + (file.remoteAgents().isEmpty() ? "none" : String.join(", ",
                            file.remoteAgents().stream().map(RemoteAgentConfig::name).toList())) + ")");
                }
                Map<String, String> given = new LinkedHashMap<>();
                for (String header : headers == null ? List.<String>of() : headers) {
                    int colon = header.indexOf(':');
                    if (colon <= 0) {
                        throw new UsageException("--header: expected 'NAME: VALUE'");
                    }
                    given.put(header.substring(0, colon).strip(), header.substring(colon + 1).strip());
                }
                if (!given.isEmpty()) {
                    builder.headers(new RemoteAgentConfig("--header", "http://unused", given).headers(root.host::envValue));
                }
            } catch (A2aClientException | IllegalArgumentException e) {
                throw new UsageException(e.getMessage().replace("a2a.--header.headers.", "--header "));
            }
            if (binding != null) {
                builder.binding(switch (binding) {
                    case "jsonrpc" -> AgentInterface.JSONRPC;
                    case "http-json" -> AgentInterface.HTTP_JSON;
                    default -> throw new UsageException("--binding: jsonrpc or http-json");
                });
            }
            return builder;
        }
    }

    @Command(name = "card", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = "Prints the agent's card: its name, description, interfaces (the one Bellows uses marked),"
                    + " capabilities and skills; or, with --output json, the card as the agent sent it.",
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:printed", "1:the card cannot be read or used (its URL, the reason)",
                    "2:usage error (a bad URL or option, an unknown agent name)"})
    static final class Card implements Callable<Integer> {

        @ParentCommand
        A2aCommand parent;

        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Where where = new Where();

        @Option(names = "--output", paramLabel = "text|json", description = "text (default) or the card as JSON.")
        String output;

        @Override
        public Integer call() {
            BellowsCommand root = parent.root;
            String mode;
            A2aClient.Builder builder;
            try {
                mode = outputMode(output, "json");
                builder = where.builder(root);
            } catch (UsageException e) {
                return fail(root, spec, e.getMessage(), 2);
            }
            try (A2aClient client = builder.connect()) {
                String text = mode.equals("json") ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(client.card()) + "\n"
                        : describe(client.card(), client.endpoint());
                return write(root, spec, mode.equals("json") ? text : Shown.text(text)) ? 0 : 1;
            } catch (A2aClientException | A2aException e) {
                return fail(root, spec, e.getMessage(), 1);
            } catch (JacksonException e) {
                return fail(root, spec, "cannot write the card: " + e.getMessage(), 1);
            }
        }
    }

    /** The card in words, one fact a line. */
    static String describe(AgentCard card, AgentInterface used) {
        StringBuilder out = new StringBuilder();
        out.append(card.name()).append(card.version() == null ? "" : " " + card.version()).append('\n');
        if (card.description() != null && !card.description().isBlank()) {
            out.append("  ").append(card.description().strip()).append('\n');
        }
        if (card.provider() != null && card.provider().organization() != null) {
            out.append("provider: ").append(card.provider().organization())
                    .append(card.provider().url() == null ? "" : " (" + card.provider().url() + ")").append('\n');
        }
        out.append("interfaces:\n");
        for (AgentInterface i : card.supportedInterfaces()) {
            out.append("  ").append(i.protocolBinding()).append(' ').append(i.protocolVersion()).append("  ").append(i.url())
                    .append(i.equals(used) ? "  (used)" : "").append('\n');
        }
        List<String> capabilities = new ArrayList<>();
        if (card.capabilities() != null) {
            if (Boolean.TRUE.equals(card.capabilities().streaming())) {
                capabilities.add("streaming");
            }
            if (Boolean.TRUE.equals(card.capabilities().pushNotifications())) {
                capabilities.add("push notifications");
            }
            if (Boolean.TRUE.equals(card.capabilities().extendedAgentCard())) {
                capabilities.add("extended card");
            }
        }
        out.append("capabilities: ").append(capabilities.isEmpty() ? "none" : String.join(", ", capabilities)).append('\n');
        if (card.securitySchemes() != null && !card.securitySchemes().isEmpty()) {
            out.append("security: ").append(String.join(", ", card.securitySchemes().keySet())).append('\n');
        }
        out.append("skills:").append(card.skills() == null || card.skills().isEmpty() ? " none" : "").append('\n');
        for (AgentSkill skill : card.skills() == null ? List.<AgentSkill>of() : card.skills()) {
            out.append("  ").append(skill.id()).append("  ").append(skill.name())
                    .append(skill.description() == null || skill.description().isBlank() ? "" : ": " + skill.description().strip())
                    .append('\n');
        }
        return out.toString();
    }

    /** {@code --output}: text (the default) or the command's other form. */
    static String outputMode(String given, String other) throws UsageException {
        String mode = given == null ? "text" : given;
        if (!mode.equals("text") && !mode.equals(other)) {
            throw new UsageException("--output: text or " + other);   // never the value given (cli.md)
        }
        return mode;
    }

    static boolean write(BellowsCommand root, CommandSpec spec, String text) {
        try {
            root.stdout.write(text.getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
            return true;
        } catch (IOException e) {
            root.stderr.println(spec.qualifiedName() + ": cannot write to standard output: "
                    + BellowsCommand.oneLine(String.valueOf(e.getMessage())));
            root.stderr.flush();
            return false;
        }
    }

    static int fail(BellowsCommand root, CommandSpec spec, String message, int status) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
        root.stderr.flush();
        return status;
    }

    @Command(name = "send", mixinStandardHelpOptions = true, versionProvider = BellowsCommand.Version.class,
            description = {"Sends TASK to the agent as a new task (or into one with --task-id) and streams its events:"
                    + " the answer's text on standard output as it arrives, status changes on standard error; with"
                    + " --output jsonl, every event as one JSON line (A2A's StreamResponse) on standard output.",
                    "",
                    "When the agent asks for input, its question is printed with the command that answers it."
                            + " Ctrl-C cancels the remote task."},
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:the task completed", "1:it failed, was rejected or cancelled, or the agent could not be used",
                    "2:usage error", "3:the agent asks for input (the question printed)", "130:cancelled (Ctrl-C)"})
    static final class Send implements Callable<Integer> {

        @ParentCommand
        A2aCommand parent;

        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Where where = new Where();

        @picocli.CommandLine.Parameters(index = "1", paramLabel = "TASK", description = "The message: the task in words.")
        String task;

        @Option(names = "--output", paramLabel = "text|jsonl", description = "text (default) or jsonl.")
        String output;

        @Option(names = "--task-id", paramLabel = "ID", description = "Send into this task (one that waits for input).")
        String taskId;

        @Option(names = "--context-id", paramLabel = "ID", description = "The conversation (context) to send in.")
        String contextId;

        @Override
        public Integer call() {
            BellowsCommand root = parent.root;
            String mode;
            A2aClient.Builder builder;
            try {
                mode = outputMode(output, "jsonl");
                if (task == null || task.isBlank()) {
                    throw new UsageException("TASK is empty: say what the agent should do");
                }
                builder = where.builder(root);
            } catch (UsageException e) {
                return fail(root, spec, e.getMessage(), 2);
            }
            return new A2aSend(root, spec, mode.equals("jsonl"), resumeHint()).run(builder, task, taskId, contextId);
        }

        /** The command that answers a question, all but the answer and the ids. */
        private String resumeHint() {
            List<String> words = new ArrayList<>(List.of("bellows", "a2a", "send", Shell.quote(where.url), "ANSWER"));
            if (where.config != null) {
                words.addAll(List.of("--config", Shell.quote(where.config)));
            }
            if (where.binding != null) {
                words.addAll(List.of("--binding", where.binding));
            }
            // --header values are not repeated: they may hold a secret.
            return String.join(" ", words) + (where.headers == null ? "" : " (with your --header options)");
        }
    }
}
