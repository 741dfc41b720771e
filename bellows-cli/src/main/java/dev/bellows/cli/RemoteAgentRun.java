package dev.bellows.cli;

import dev.bellows.a2a.client.A2aClient;
import dev.bellows.a2a.client.RemoteAgent;
import dev.bellows.a2a.client.RemoteAgentConfig;
import dev.bellows.a2a.client.RemoteWait;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Session;
import dev.bellows.tool.LoopEndReason;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code bellows run --agent NAME} and {@code bellows chat --agent NAME} where NAME is a remote
 * A2A agent of the config file's {@code "a2a"} (cli.md, "A2A: agents calling agents"): the
 * remote agent runs the task, no model of this command's is used, its task's events are shown
 * as a local run's. A task that asks for input ends {@code run} with status 3, the question on
 * standard output and the command that answers it on standard error; in {@code chat}, the next
 * line answers it.
 */
final class RemoteAgentRun {

    private RemoteAgentRun() {
    }

    /** The remote agent, its headers resolved from the host's environment now (a variable not set: a usage error). */
    static RemoteAgent agent(BellowsCommand root, RemoteAgentConfig config, List<AgentListener> listeners)
            throws UsageException {
        Map<String, String> headers;
        try {
            headers = config.headers(root.host::envValue);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return RemoteAgent.of(config.name(), () -> A2aClient.builder(config.url()).headers(headers).connect(), listeners);
    }

    /**
     * Runs {@code task} on the remote agent; the exit status: 0, 1, 3 (it asks for input) or 130.
     *
     * @param output the {@code --output} flag, or null
     */
    static int run(BellowsCommand root, String command, ModelOptions options, RemoteAgentConfig config, String output,
                   String task, boolean deciding) throws UsageException {
        String mode = output != null ? output : options.configFile(root.host).string("output");
        if (mode != null && !mode.equals("text") && !mode.equals("jsonl")) {
            throw new UsageException((output != null ? "--output" : options.configFile(root.host).source("output"))
                    + ": unknown output (text or jsonl)");
        }
        if (options.session != null || deciding) {
            throw new UsageException((deciding ? "--approve-call/--deny-call/--answer-call" : "--session") + ": "
                    + config.name() + " is a remote A2A agent, which keeps its own tasks and conversations: answer"
                    + " a question it asks with the command it prints");
        }
        if (task.isBlank()) {
            throw new UsageException("TASK is empty: say what " + config.name() + " should do");
        }
        boolean jsonl = "jsonl".equals(mode);
        AgentRunner runner = new AgentRunner(root, command, jsonl, null).agent(config.name());
        Session session = new Session();
        try (RemoteAgent agent = agent(root, config, List.of(runner.listener()))) {
            int status = runner.follow(() -> agent.run(task, session));
            Optional<RemoteWait> waiting = agent.pendingInput(session);
            if (status == 0 && waiting.isPresent()) {
                RemoteWait wait = waiting.get();
                root.stderr.println(command + ": " + config.name() + " asks for input; answer with: bellows a2a send "
                        + config.name() + " ANSWER --task-id " + wait.taskId() + " --context-id " + wait.contextId());
                root.stderr.flush();
                return AgentRunner.INTERRUPTED;
            }
            return status;
        }
    }

    /** A chat with the remote agent: each line a message in one remote conversation; the exit status. */
    static int chat(BellowsCommand root, ModelOptions options, RemoteAgentConfig config) throws UsageException {
        if (options.session != null) {
            throw new UsageException("--session: " + config.name() + " is a remote A2A agent, which keeps its own"
                    + " conversation");
        }
        AtomicReference<AgentListener> shown = new AtomicReference<>(event -> { });
        Session session = new Session();
        boolean failed = false;
        try (RemoteAgent agent = agent(root, config, List.of(event -> shown.get().onEvent(event)));
             ChatIo io = ChatIo.open(root, options.dataDirectory(root.host).resolve("chat_history"))) {
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
                    continue;
                }
                interruptedOnce = false;
                String text = ((ChatIo.Line) input).text().strip();
                if (text.isEmpty()) {
                    continue;
                }
                if (text.equals("/exit") || text.equals("/quit")) {
                    return io.script() && failed ? 1 : 0;
                }
                AgentResult result = turn(io, shown, () -> agent.run(text, session));
                PrintWriter out = io.out();
                if (result.reason().successful()) {
                    out.print(MarkdownText.render(Shown.text(result.result()), io.colorAnswers(), io.answersWidth()));
                    out.flush();
                } else if (result.reason() == LoopEndReason.CANCELLED) {
                    io.progress().println("(cancelled: the remote task was cancelled too)");
                    io.progress().flush();
                    if (io.script()) {
                        return 130;
                    }
                } else {
                    failed = true;
                    io.progress().println(Shown.text(result.reason().wireName() + ": "
                            + BellowsCommand.oneLine(result.result())));
                    io.progress().flush();
                }
            }
        }
    }

    private static AgentResult turn(ChatIo io, AtomicReference<AgentListener> shown,
                                    java.util.function.Supplier<AgentRun> start) {
        TextRenderer renderer = new TextRenderer(io.progress(), io.ansi(), io.color(), io.width(), io.height())
                .followSize(() -> new int[] {io.width(), io.height()});
        shown.set(renderer);
        AgentRun run = start.get();
        try (AutoCloseable interrupt = io.onInterrupt(run::cancel)) {
            return run.await();
        } catch (Exception e) {     // closing the interrupt handler
            return run.await();
        } finally {
            renderer.close();
            shown.set(event -> { });
        }
    }
}
