package dev.bellows.cli;

import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.temporal.DurableAgent;
import dev.bellows.temporal.FollowNotice;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code bellows run --temporal HOST:PORT ...}: the run as a durable workflow (cli.md, "Durable
 * runs on Temporal"). Starts it and follows it with the events and exit status of a local run,
 * or only starts it ({@code --detach}, printing the workflow id), or follows one started before
 * ({@code --follow ID}, from its first event). Ctrl-C while following cancels the workflow. No
 * model option and no key is needed or taken: they are the workers'.
 *
 * <p>A run that reaches calls needing approval (the workers' {@code --approve}) shows
 * {@code approval_required} and ends its output with {@code loop_end} {@code interrupted}, exit
 * status 3, while its workflow waits; {@code --follow ID --approve-call ID / --deny-call ID}
 * decides and follows the run on from there.
 */
final class TemporalRun {

    private TemporalRun() {
    }

    /** What {@code --approve-call}, {@code --deny-call} and {@code --deny-reason} gave (each null when absent). */
    record Decisions(List<String> approve, List<String> deny, String denyReason) {

        boolean given() {
            return approve != null || deny != null;
        }

        /** The decisions, approvals first. */
        List<Decision> list() throws UsageException {
            List<Decision> list = new ArrayList<>();
            Set<String> seen = new LinkedHashSet<>();
            for (String id : approve == null ? List.<String>of() : approve) {
                if (!seen.add(id)) {
                    throw new UsageException("--approve-call: call " + id + " is named twice");
                }
                list.add(Decision.approve(id));
            }
            for (String id : deny == null ? List.<String>of() : deny) {
                if (!seen.add(id)) {
                    throw new UsageException("--deny-call: call " + id + " is named twice, or also approved");
                }
                list.add(Decision.deny(id, denyReason == null ? "" : denyReason));
            }
            return list;
        }
    }

    static int run(BellowsCommand root, CommandSpec spec, ModelOptions options, TemporalOptions temporal,
                   String output, boolean detach, String follow, List<String> task, Decisions decisions) {
        String command = spec.qualifiedName();
        String text = task == null ? "" : String.join(" ", task);
        boolean jsonl;
        List<Decision> decided;
        try {
            if (!temporal.given()) {
                throw new UsageException((detach ? "--detach" : "--follow") + ": only with --temporal HOST:PORT");
            }
            temporal.check();
            workerOnly(options);
            if (follow != null && !text.isBlank()) {
                throw new UsageException("--follow: follows a run started before; give no TASK with it");
            }
            if (follow != null && detach) {
                throw new UsageException("--detach: starts a run; --follow follows one: not both");
            }
            if (follow != null && follow.isBlank()) {
                throw new UsageException("--follow: give the workflow id that --detach printed");
            }
            if (decisions.given() && follow == null) {
                throw new UsageException((decisions.approve() != null ? "--approve-call" : "--deny-call")
                        + ": with --temporal, needs --follow ID, the workflow id of the run that waits");
            }
            if (decisions.denyReason() != null && decisions.deny() == null) {
                throw new UsageException("--deny-reason: only with --deny-call ID");
            }
            decided = decisions.list();
            if (options.session != null && follow != null) {
                throw new UsageException("--session: starts a run of the session; --follow follows a run by its"
                        + " workflow id: not both");
            }
            if (options.session != null && options.session.isBlank()) {
                throw new UsageException("--session: give the session's name");
            }
            if (follow == null && text.isBlank()) {
                throw new UsageException(task == null || task.isEmpty() ? "Missing required parameter: 'TASK'"
                        : "TASK is empty: say what the agent should do, e.g. bellows run \"list the files\"");
            }
            if (output != null && !output.equals("text") && !output.equals("jsonl")) {
                throw new UsageException("--output: text or jsonl, not " + output);
            }
            jsonl = "jsonl".equals(output);
            if (options.agent != null && (options.agent.equals("default") || options.agent.equals("react"))) {
                throw new UsageException("--agent " + options.agent + ": set it on the workers (bellows worker): a durable"
                        + " run's loop is theirs; a client names only a configured agent the workers serve");
            }
        } catch (UsageException e) {
            root.stderr.println(command + ": " + BellowsCommand.oneLine(UsageErrors.redact(e.getMessage(), spec)));
            root.stderr.flush();
            return 2;
        }
        WorkflowClient client;
        try {
            client = temporal.connect(root.host, line -> say(root, command, line));
        } catch (UsageException e) {
            root.stderr.println(command + ": " + BellowsCommand.oneLine(e.getMessage()));
            return 2;
        } catch (RuntimeException e) {
            root.stderr.println(command + ": cannot reach Temporal at " + temporal.address + " (tried for "
                    + temporal.patience().toSeconds() + " s): " + BellowsCommand.oneLine(e.getMessage()));
            return 1;
        }
        try {
            AgentRunner runner = new AgentRunner(root, command, jsonl, null);
            DurableAgent.Builder agents = DurableAgent.builder(client);
            if (options.agent != null) {
                // the workers must serve this configured agent (bellows worker --agent NAME): else the run ends error
                agents.agent(options.agent);
                runner.agent(options.agent);
            }
            DurableAgent agent = agents.taskQueue(temporal.taskQueue())
                    .frontendPatience(temporal.patience())
                    .listener(runner.listener())
                    .notices(notice -> say(root, command, notice.kind() == FollowNotice.Kind.NO_WORKER
                            ? notice.text() + " (start one: bellows worker --temporal " + temporal.address
                            + carryOnOptions(temporal) + " with the model's options)" : notice.text()))
                    .build();
            if (follow != null) {
                String id = follow.strip();
                runner.carryOn(command + " --temporal " + temporal.address + carryOnOptions(temporal) + " --follow " + id);
                if (decisions.given()) {
                    try {
                        return runner.follow(() -> agent.decide(id, decided));
                    } catch (IllegalArgumentException e) {
                        // The workflow refused the decisions (an id left out, unknown, or nothing waits): nothing ran.
                        root.stderr.println(command + ": " + BellowsCommand.oneLine(e.getMessage()));
                        root.stderr.flush();
                        return 2;
                    } catch (RuntimeException e) {
                        root.stderr.println(command + ": the decisions could not be given to " + id + ": "
                                + BellowsCommand.oneLine(e.getMessage()));
                        root.stderr.flush();
                        return 1;
                    }
                }
                return runner.follow(agent.follow(id));
            }
            String id;
            try {
                id = options.session == null ? agent.start(text) : agent.start(text, options.session);
            } catch (IllegalStateException e) {
                // The session's last run has not ended, or another client started its next one: nothing started.
                root.stderr.println(command + ": " + BellowsCommand.oneLine(e.getMessage()));
                root.stderr.flush();
                return 2;
            } catch (RuntimeException e) {
                root.stderr.println(command + ": the run could not be started: " + BellowsCommand.oneLine(e.getMessage()));
                return 1;
            }
            if (detach) {
                try {
                    root.stdout.write((id + "\n").getBytes(StandardCharsets.UTF_8));
                    root.stdout.flush();
                } catch (IOException e) {
                    root.stderr.println(command + ": cannot write to standard output: " + BellowsCommand.oneLine(e.getMessage()));
                    return 1;
                }
                return 0;
            }
            root.stderr.println(command + ": durable run " + id + " (bellows run --temporal " + temporal.address
                    + " --follow " + id + " follows it again)");
            root.stderr.flush();
            AgentRun run = agent.follow(id);
            runner.carryOn(command + " --temporal " + temporal.address + carryOnOptions(temporal) + " --follow " + id);
            return runner.follow(run);
        } finally {
            client.getWorkflowServiceStubs().shutdown();
        }
    }

    /** Why the run shows nothing for a while, on standard error, as it happens. */
    private static void say(BellowsCommand root, String command, String line) {
        root.stderr.println(command + ": " + BellowsCommand.oneLine(line));
        root.stderr.flush();
    }

    /** The namespace and task queue options of the command that carries a run on, when not the defaults. */
    private static String carryOnOptions(TemporalOptions temporal) {
        StringBuilder text = new StringBuilder();
        if (!temporal.namespace().equals("default")) {
            text.append(" --namespace ").append(temporal.namespace());
        }
        if (!temporal.taskQueue().equals(dev.bellows.temporal.DurableWorker.DEFAULT_TASK_QUEUE)) {
            text.append(" --task-queue ").append(temporal.taskQueue());
        }
        return text.toString();
    }

    /** Model, loop and MCP options belong on the workers: given to the client they would do nothing. */
    private static void workerOnly(ModelOptions options) throws UsageException {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("--provider", options.provider);
        given.put("--base-url", options.baseUrl);
        given.put("--api-key", options.apiKey);
        given.put("--model", options.model);
        given.put("--max-iterations", options.maxIterations);
        given.put("--max-consecutive-errors", options.maxConsecutiveErrors);
        given.put("--max-retries", options.maxRetries);
        given.put("--timeout-seconds", options.timeoutSeconds);
        given.put("--max-context-tokens", options.maxContextTokens);
        given.put("--system", options.system);
        given.put("--mcp-config", options.mcpConfig);
        given.put("--max-depth", options.maxDepth);
        given.put("--dialect", options.dialect);
        given.put("--tool-mode", options.toolMode);
        given.put("--thinking-budget", options.thinkingBudget);
        given.put("--approve", options.approve);
        for (Map.Entry<String, Object> option : given.entrySet()) {
            if (option.getValue() != null) {
                throw new UsageException(option.getKey()
                        + ": set it on the workers (bellows worker): a durable run's model, key, tools and loop are theirs");
            }
        }
    }
}
