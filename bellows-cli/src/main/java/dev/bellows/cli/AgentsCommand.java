package dev.bellows.cli;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows agents}: the agents of the config file's {@code "agents"}, one a line: name,
 * kind, the agents it may call and hand off to (or a workflow's members and its merging agent),
 * and its tools. Reading the file checks it as {@code bellows run} does.
 */
@Command(name = "agents",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Lists the agents of the config file (\"agents\"): name, kind, what each may call and hand"
                + " off to, its tools.", "", "Run one with bellows run --agent NAME TASK or bellows chat --agent NAME."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:listed (none, when the config file has no agents)", "2:usage or configuration error"})
final class AgentsCommand implements Callable<Integer> {

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "The config file; default: BELLOWS_CONFIG, else bellows.json in the working directory.")
    String config;

    @Override
    public Integer call() throws Exception {
        AgentsConfig agents;
        try {
            agents = ConfigFile.locate(root.host, config).agents();
        } catch (UsageException e) {
            root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(e.getMessage()));
            root.stderr.flush();
            return e.status();
        }
        StringBuilder out = new StringBuilder();
        if (agents.agents().isEmpty() && agents.remotes().isEmpty()) {
            root.stderr.println(spec.qualifiedName() + ": the config file defines no agents (\"agents\" or \"a2a\")");
            root.stderr.flush();
            return 0;
        }
        for (AgentsConfig.Spec agent : agents.agents().values()) {
            out.append(Shown.text(line(agent))).append('\n');
        }
        for (dev.bellows.a2a.client.RemoteAgentConfig remote : agents.remotes().values()) {
            // the URL and the headers' names; never a header's value
            out.append(Shown.text(remote.name() + "  remote  url: " + remote.url()
                    + (remote.headers().isEmpty() ? "" : "  headers: " + String.join(", ", remote.headers().keySet()))))
                    .append('\n');
        }
        root.stdout.write(out.toString().getBytes(StandardCharsets.UTF_8));
        root.stdout.flush();
        return 0;
    }

    /** {@code NAME  KIND  calls: a, b  handoffs: c  tools: ...}, the parts that say something. */
    static String line(AgentsConfig.Spec agent) {
        StringBuilder line = new StringBuilder(agent.name()).append("  ")
                .append(agent.kind().name().toLowerCase(java.util.Locale.ROOT));
        switch (agent.kind()) {
            case SEQUENCE -> line.append("  runs: ").append(String.join(" -> ", agent.members()));
            case PARALLEL -> {
                line.append("  runs: ").append(String.join(", ", agent.members()));
                if (agent.then() != null) {
                    line.append("  then: ").append(agent.then());
                }
            }
            case LOOP -> {
                line.append("  runs: ").append(agent.members().getFirst());
                if (agent.until() != null) {
                    line.append("  until: ").append(agent.until());
                }
                line.append("  max_rounds: ").append(agent.maxRounds());
            }
            case ROUTER -> line.append("  routes: ").append(String.join(", ", agent.members()))
                    .append("  chooser: ").append(agent.then());
            case DEFAULT, REACT -> {
                part(line, "calls", agent.agents());
                part(line, "handoffs", agent.handoffs());
                if (agent.tools() == null && agent.mcpServers() == null) {
                    line.append("  tools: the command line's");
                } else {
                    part(line, "tools", agent.tools());
                    part(line, "mcp_servers", agent.mcpServers());
                }
                if (agent.model() != null) {
                    line.append("  model: ").append(agent.model());
                }
            }
        }
        return line.toString();
    }

    private static void part(StringBuilder line, String label, List<String> names) {
        if (names != null && !names.isEmpty()) {
            line.append("  ").append(label).append(": ").append(String.join(", ", names));
        }
    }
}
