package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ApiKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

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

    private final BellowsCommand root;
    private final String command;
    private final boolean jsonl;
    private final ApiKey keyToRedact;
    private final TextRenderer renderer;
    private final AtomicReference<AgentRun> current = new AtomicReference<>();
    private final AtomicReference<IOException> outputFailure = new AtomicReference<>();

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

    /** The listener that renders or writes the run's events. */
    AgentListener listener() {
        return jsonl ? this::writeJsonLine : renderer;
    }

    /** Runs the task to its end and returns the exit status (0, 1 or 130). */
    int run(Agent agent, String task) {
        return follow(agent.run(task));
    }

    /** Follows a run started elsewhere (a durable run's workflow) to its end: the same output and exit status. */
    int follow(AgentRun run) {
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
                    root.stdout.write((result.result() + "\n").getBytes(StandardCharsets.UTF_8));
                    root.stdout.flush();
                } catch (IOException e) {
                    return cannotWrite(e);
                }
            }
            return 0;
        }
        error(reason == LoopEndReason.CANCELLED ? "cancelled"
                : reason.wireName() + ": " + BellowsCommand.oneLine(result.result()));
        return reason == LoopEndReason.CANCELLED ? CANCELLED : 1;
    }

    private int cannotWrite(IOException e) {
        if (!ClosedPipes.isClosedPipe(e)) {
            error("cannot write to standard output: " + BellowsCommand.oneLine(e.getMessage()));
        }
        return 1;
    }

    private void error(String line) {
        root.stderr.println(command + ": " + (keyToRedact == null ? line : keyToRedact.redact(line)));
        root.stderr.flush();
    }

    /** One event as one JSON line, flushed at once; a broken standard output cancels the run. */
    private void writeJsonLine(AgentEvent event) {
        if (event instanceof StreamEvent.Complete || outputFailure.get() != null) {
            return;
        }
        try {
            root.stdout.write((EventJson.toJson(event, false).toString() + "\n").getBytes(StandardCharsets.UTF_8));
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
