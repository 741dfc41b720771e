package dev.bellows.cli;

import dev.bellows.agent.AgentRun;
import dev.bellows.temporal.DurableAgent;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code bellows run --temporal HOST:PORT ...}: the run as a durable workflow (cli.md, "Durable
 * runs on Temporal"). Starts it and follows it with the events and exit status of a local run,
 * or only starts it ({@code --detach}, printing the workflow id), or follows one started before
 * ({@code --follow ID}, from its first event). Ctrl-C while following cancels the workflow. No
 * model option and no key is needed or taken: they are the workers'.
 */
final class TemporalRun {

    private TemporalRun() {
    }

    static int run(BellowsCommand root, CommandSpec spec, ModelOptions options, TemporalOptions temporal,
                   String output, boolean detach, String follow, List<String> task) {
        String command = spec.qualifiedName();
        String text = task == null ? "" : String.join(" ", task);
        boolean jsonl;
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
            if (follow == null && text.isBlank()) {
                throw new UsageException(task == null || task.isEmpty() ? "Missing required parameter: 'TASK'"
                        : "TASK is empty: say what the agent should do, e.g. bellows run \"list the files\"");
            }
            if (output != null && !output.equals("text") && !output.equals("jsonl")) {
                throw new UsageException("--output: text or jsonl, not " + output);
            }
            jsonl = "jsonl".equals(output);
        } catch (UsageException e) {
            root.stderr.println(command + ": " + BellowsCommand.oneLine(UsageErrors.redact(e.getMessage(), spec)));
            root.stderr.flush();
            return 2;
        }
        WorkflowClient client;
        try {
            client = temporal.connect(root.host);
        } catch (UsageException e) {
            root.stderr.println(command + ": " + BellowsCommand.oneLine(e.getMessage()));
            return 2;
        } catch (RuntimeException e) {
            root.stderr.println(command + ": cannot reach Temporal at " + temporal.address + ": "
                    + BellowsCommand.oneLine(e.getMessage()));
            return 1;
        }
        try {
            AgentRunner runner = new AgentRunner(root, command, jsonl, null);
            DurableAgent agent = DurableAgent.builder(client).taskQueue(temporal.taskQueue())
                    .listener(runner.listener()).build();
            if (follow != null) {
                return runner.follow(agent.follow(follow.strip()));
            }
            String id;
            try {
                id = agent.start(text);
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
            return runner.follow(run);
        } finally {
            client.getWorkflowServiceStubs().shutdown();
        }
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
        given.put("--agent", options.agent);
        given.put("--dialect", options.dialect);
        given.put("--tool-mode", options.toolMode);
        given.put("--thinking-budget", options.thinkingBudget);
        given.put("--session", options.session);
        for (Map.Entry<String, Object> option : given.entrySet()) {
            if (option.getValue() != null) {
                throw new UsageException(option.getKey() + ": " + (option.getKey().equals("--session")
                        ? "not supported with --temporal yet: a durable run's conversation lives in its workflow"
                        : "set it on the workers (bellows worker): a durable run's model, key, tools and loop are theirs"));
            }
        }
    }
}
