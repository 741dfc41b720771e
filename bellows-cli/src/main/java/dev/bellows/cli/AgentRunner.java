package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.internal.StreamRedaction;
import dev.bellows.provider.ApiKey;
import dev.bellows.a2a.client.RemoteAgent;
import dev.bellows.agent.WaitingCall;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs one agent task for a command ({@code run}, {@code demo}) as cli.md's "Output" and
 * "Exit status" say: events rendered on standard error or written as JSON lines, the answer on
 * standard output, Ctrl-C cancelling, and the ending mapped to the exit status.
 *
 * <p>Give the agent {@link #listener()} when building it, then call {@link #run(Agent, String)}.
 */
final class AgentRunner {

    /** The exit status of a run cancelled with Ctrl-C. */
    static final int CANCELLED = 130;
    /** The exit status of a run that stopped at tool calls waiting for approval. */
    static final int INTERRUPTED = 3;

    private final BellowsCommand root;
    private final String command;
    private final boolean jsonl;
    private final ApiKey keyToRedact;
    private final TextRenderer renderer;
    private final AtomicReference<AgentRun> current = new AtomicReference<>();
    private final AtomicReference<IOException> outputFailure = new AtomicReference<>();
    /** The session a stopped run can be resumed in, for the command that resumes it; null for none. */
    private String session;
    private String sessionOptions = "";
    private String carryOn;     // the command that decides on a durable run's waiting calls, up to its decisions

    /**
     * @param command     the command's name for messages ({@code bellows run})
     * @param keyToRedact the API key in use, kept out of every line written; null when none
     */
    AgentRunner(BellowsCommand root, String command, boolean jsonl, ApiKey keyToRedact) {
        this.root = root;
        this.command = command;
        this.jsonl = jsonl;
        this.keyToRedact = keyToRedact;
        this.renderer = jsonl ? null : new TextRenderer(root.stderr, root.host.terminal());
    }

    /** The configured agent that runs, named in every JSON line; null for the command line's own. */
    private String agent;

    /** Names {@code name}, a configured agent, in every JSON line of the run ({@code "agent"}). */
    AgentRunner agent(String name) {
        this.agent = name;
        return this;
    }

    /** Stops the progress spinner while something else asks on the terminal (a server's question). */
    void quiet() {
        if (renderer != null) {
            renderer.pauseSpinner();
        }
    }

    /** The listener that renders or writes the run's events. */
    AgentListener listener() {
        return jsonl ? this::writeJsonLine : renderer;
    }

    /** The session the runs are in, named in the command that resumes a stopped one. */
    AgentRunner session(String name) {
        return session(name, "");
    }

    /** As {@link #session(String)}; {@code options} (shell-quoted, each after a space) go in that command too. */
    AgentRunner session(String name, String options) {
        this.session = name;
        this.sessionOptions = options;
        return this;
    }

    /**
     * Whether the session's next run answers the question its run stopped at (a remote agent a
     * handoff gave the conversation to asks it) rather than a resume with decisions: asked once
     * the run stopped.
     */
    private java.util.function.BooleanSupplier nextRunAnswers = () -> false;

    AgentRunner nextRunAnswers(java.util.function.BooleanSupplier answers) {
        this.nextRunAnswers = answers;
        return this;
    }

    /**
     * The command that carries a stopped run on, up to the decisions ({@code bellows run --temporal
     * HOST:PORT --follow ID}): a durable run waits in its workflow, not in a session.
     */
    AgentRunner carryOn(String command) {
        this.carryOn = command;
        return this;
    }

    /** Runs the task to its end and returns the exit status (0, 1, 3 or 130). */
    int run(Agent agent, String task) {
        return follow(() -> agent.run(task));
    }

    /** Follows a run started elsewhere (a durable run's workflow) to its end: the same output and exit status. */
    int follow(AgentRun run) {
        return follow(() -> run);
    }

    /**
     * Follows a run that {@code start} starts to its end and returns the exit status (0, 1, 3 or
     * 130). What {@code start} throws (a run refused before it began) is thrown here.
     */
    int follow(Supplier<AgentRun> start) {
        AgentRun run = start.get();
        current.set(run);
        if (outputFailure.get() != null) {
            run.cancel(); // standard output failed before the handle was known
        }
        AgentResult result;
        try (AutoCloseable interrupt = root.host.interrupts().onInterrupt(run::cancel)) {
            result = run.await();
        } catch (Exception e) { // closing the interrupt handler
            result = run.await();
        } finally {
            if (renderer != null) {
                renderer.close();
            }
        }
        if (outputFailure.get() != null) {
            return cannotWrite(outputFailure.get());
        }
        LoopEndReason reason = result.reason();
        if (reason.successful()) {
            if (!jsonl) {
                try {
                    root.stdout.write((Shown.text(result.result()) + "\n").getBytes(StandardCharsets.UTF_8));
                    root.stdout.flush();
                } catch (IOException e) {
                    return cannotWrite(e);
                }
            }
            return 0;
        }
        if (reason == LoopEndReason.INTERRUPTED) {
            if (!jsonl) {
                waiting(result.waiting());
            }
            return INTERRUPTED;
        }
        error(reason == LoopEndReason.CANCELLED ? "cancelled"
                : reason.wireName() + ": " + BellowsCommand.oneLine(result.result()));
        return reason == LoopEndReason.CANCELLED ? CANCELLED : 1;
    }

    /**
     * The calls a stopped run waits on, and the command that carries it on (text mode, standard
     * error); a remote sub-agent's question goes to standard output too, as a question that ends
     * a run does.
     */
    private void waiting(List<WaitingCall> calls) {
        boolean approvals = calls.stream().allMatch(call -> call.kind() == WaitingCall.Kind.APPROVAL);
        boolean answers = calls.stream().noneMatch(call -> call.kind() == WaitingCall.Kind.APPROVAL);
        StringBuilder questions = new StringBuilder();
        StringBuilder text = new StringBuilder();
        text.append(command).append(": interrupted: ").append(calls.size() == 1 ? "a tool call waits" : calls.size()
                + " tool calls wait").append(approvals ? " for approval:" : answers ? " for an answer:"
                : " for a decision:").append(System.lineSeparator());
        for (WaitingCall call : calls) {
            String question = question(call);
            if (question != null) {
                questions.append(question).append('\n');
            }
            text.append("  ").append(call.id()).append("  ").append(call.serverName()).append('/')
                    .append(call.toolName()).append("  ").append(question != null ? "asks: " + cut(question, 300)
                            : cut(call.arguments().toString(), 300))
                    .append(System.lineSeparator());
        }
        if (!questions.isEmpty()) {
            try {
                root.stdout.write(Shown.text(questions.toString()).getBytes(StandardCharsets.UTF_8));
                root.stdout.flush();
            } catch (IOException e) {
                cannotWrite(e);
            }
        }
        if (carryOn != null) {
            text.append("to carry it on: ").append(carryOn);
            for (WaitingCall call : calls) {
                text.append(" --approve-call ").append(call.id());
            }
            text.append("   (or --deny-call ID, with --deny-reason TEXT)");
        } else if (session == null) {
            text.append("this run cannot be resumed: it has no session (run it with --session NAME to decide on its"
                    + " calls later)");
        } else if (!questions.isEmpty() && nextRunAnswers.getAsBoolean()) {
            text.append("answer with: ").append(command).append(" --session ").append(session).append(sessionOptions)
                    .append(" ANSWER");
        } else {
            text.append("to carry it on: ").append(command).append(" --session ").append(session).append(sessionOptions);
            for (WaitingCall call : calls) {
                text.append(call.kind() == WaitingCall.Kind.APPROVAL ? " --approve-call " + call.id()
                        : " --answer-call " + Shell.quote(call.id() + "=ANSWER"));
            }
            text.append(approvals ? "   (or --deny-call ID, with --deny-reason TEXT)"
                    : "   (ANSWER your answer; or --deny-call ID, with --deny-reason TEXT)");
        }
        String shown = Shown.text(text.toString());
        root.stderr.println(keyToRedact == null ? shown : keyToRedact.redact(shown));
        root.stderr.flush();
    }

    /** The question a remote sub-agent's waiting call asks, or null for another call. */
    static String question(WaitingCall call) {
        return call.kind() == WaitingCall.Kind.EXTERNAL && call.serverName().equals(RemoteAgent.SERVER)
                && call.arguments().path("question").isString() ? call.arguments().get("question").asString() : null;
    }

    static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "\u2026";
    }

    private int cannotWrite(IOException e) {
        if (!ClosedPipes.isClosedPipe(e)) {
            error("cannot write to standard output: " + BellowsCommand.oneLine(e.getMessage()));
        }
        return 1;
    }

    private void error(String line) {
        root.stderr.println(command + ": " + Shown.text(keyToRedact == null ? line : keyToRedact.redact(line)));
        root.stderr.flush();
    }

    /** Secrets split across the deltas of a stream kept out of the JSON lines. */
    private final StreamRedaction deltas = new StreamRedaction();

    /** The event as JSON lines, its deltas redacted across their boundaries. */
    private void writeJsonLine(AgentEvent event) {
        if (approvals.hold(event)) {
            return;
        }
        if (event instanceof LoopEvent.LoopEnd) {
            approvals.unclaimed().forEach(this::writeJsonLineAsIs);
        }
        for (AgentEvent redacted : deltas.apply(event)) {
            writeJsonLineAsIs(redacted);
        }
    }

    /** A sub-agent's waiting call on one line: the run's, with the sub-agent's agent and parent call. */
    private final NestedApprovals approvals = new NestedApprovals();

    /** One event as one JSON line, flushed at once; a broken standard output cancels the run. */
    private void writeJsonLineAsIs(AgentEvent event) {
        if (event instanceof StreamEvent.Complete || outputFailure.get() != null) {
            return;
        }
        try {
            // Shown keeps the JSON valid: its writer escapes C0 controls, Shown the rest the same way
            tools.jackson.databind.JsonNode json = EventJson.toJson(event, false);
            if (event instanceof LoopEvent.ApprovalRequired waiting) {
                json = approvals.mark(waiting, ((tools.jackson.databind.node.ObjectNode) json.deepCopy()));
            }
            if (agent != null && !json.has("agent")) {
                // a sub-agent's events name their own; a copy, since the event's tree is read-only
                json = ((tools.jackson.databind.node.ObjectNode) json.deepCopy()).put("agent", agent);
            }
            if (event instanceof LoopEvent.Handoff handoff && agent != null) {
                agent = handoff.to();           // the events from here on are the new agent's
            }
            root.stdout.write((Shown.text(json.toString()) + "\n").getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
        } catch (IOException e) {
            outputFailure.compareAndSet(null, e);
            AgentRun handle = current.get();
            if (handle != null) {
                handle.cancel();
            }
        }
    }
}
