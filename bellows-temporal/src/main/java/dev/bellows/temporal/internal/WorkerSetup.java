package dev.bellows.temporal.internal;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tool.RegisteredTool;
import dev.bellows.tool.SourceFailure;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a worker's runs are made of: the loop's settings (applied to a fresh builder for every
 * run), the retry policy, the worker's tools, and the activities' time limits. Everything here
 * stays on the worker.
 *
 * @param loop             sets the loop's options on a builder: model, tool mode, instructions,
 *                         limits, stream options, memory; never the provider, the tools or listeners
 * @param retryPolicy      the loop's retries of a model call (a dead worker's call counts as one)
 * @param tools            the worker's tools
 * @param heartbeatTimeout how long an activity may go without a heartbeat before it is taken
 *                         for dead and run again elsewhere
 * @param modelCallTimeout the longest one attempt of a model call may take
 * @param toolCallTimeout  the longest one tool call may take
 * @param agents           shapes each run's agent and the agents it calls, in the workflow; or null
 * @param agentName        the name of the agent {@code agents} shapes; null without them
 */
public record WorkerSetup(Consumer<DefaultAgent.Builder> loop, RetryPolicy retryPolicy, ToolRegistry tools,
                          Duration heartbeatTimeout, Duration modelCallTimeout, Duration toolCallTimeout,
                          dev.bellows.temporal.RunAgents agents, String agentName) {

    public WorkerSetup(Consumer<DefaultAgent.Builder> loop, RetryPolicy retryPolicy, ToolRegistry tools,
                       Duration heartbeatTimeout, Duration modelCallTimeout, Duration toolCallTimeout) {
        this(loop, retryPolicy, tools, heartbeatTimeout, modelCallTimeout, toolCallTimeout, null, null);
    }

    public WorkerSetup {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
        Objects.requireNonNull(modelCallTimeout, "modelCallTimeout");
        Objects.requireNonNull(toolCallTimeout, "toolCallTimeout");
    }

    /** The worker's tools now, as a run records them at its start. */
    public Catalog catalog() {
        List<CatalogEntry> entries = new ArrayList<>();
        for (RegisteredTool tool : tools.tools()) {
            entries.add(new CatalogEntry(tool.serverName(), tool.toolName(), tool.tool().description(),
                    tool.tool().inputSchema(), null));
        }
        for (SourceFailure failure : tools.sourceFailures()) {
            entries.add(new CatalogEntry(failure.serverName(), null, null, null, failure.reason()));
        }
        return new Catalog(entries);
    }

    /** The tools of a run, as recorded. */
    public record Catalog(List<CatalogEntry> entries) {
        public Catalog {
            entries = List.copyOf(entries);
        }
    }
}
