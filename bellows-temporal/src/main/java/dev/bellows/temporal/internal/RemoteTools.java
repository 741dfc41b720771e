package dev.bellows.temporal.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.ToolSource;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers' tools inside the workflow: a registry built from the catalog the run recorded at
 * its start, whose tools run each call as one tool-call activity. A call whose result is in the
 * history is never made again; one in flight on a worker that dies is made again (up to
 * {@link #ATTEMPTS} times in all) on another.
 *
 * <p>Workflow code: deterministic, one thread.
 */
final class RemoteTools {

    /** Executions of one tool call at most: only a lost worker makes Temporal try a call again. */
    static final int ATTEMPTS = 3;

    private final ActivityOptions options;
    private final String runId;
    private final Runnable onCancel;
    private final java.util.function.Supplier<ToolCallInput.RunInfo> run;
    private int calls;

    /** @param run what the run's interceptors see of the run now, for the worker's */
    RemoteTools(WorkerSetup setup, String runId, Runnable onCancel, java.util.function.Supplier<ToolCallInput.RunInfo> run) {
        this.runId = runId;
        this.onCancel = onCancel;
        this.run = run;
        this.options = ActivityOptions.newBuilder()
                .setStartToCloseTimeout(setup.toolCallTimeout())
                .setHeartbeatTimeout(setup.heartbeatTimeout())
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(ATTEMPTS)
                        .setInitialInterval(Duration.ofSeconds(1)).build())
                // A cancelled run ends once its tool call has stopped on the worker (the heartbeat's answer
                // tells it), not while it may still run: a dead worker's call ends with its heartbeat timeout.
                .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
                .build();
    }

    ToolRegistry registry(WorkerSetup.Catalog catalog) {
        ToolRegistry registry = new ToolRegistry();
        Map<String, List<Tool>> byServer = new LinkedHashMap<>();
        Map<String, String> down = new LinkedHashMap<>();
        for (CatalogEntry entry : catalog.entries()) {
            if (entry.unavailable() != null) {
                down.put(entry.serverName(), entry.unavailable());
            } else {
                byServer.computeIfAbsent(entry.serverName(), s -> new ArrayList<>()).add(new Remote(entry));
            }
        }
        byServer.forEach((server, tools) -> {
            if (server.equals(ToolCall.LOCAL_SERVER)) {
                tools.forEach(registry::register);
            } else {
                registry.addSource(new Source(server, tools, null));
            }
        });
        down.forEach((server, reason) -> registry.addSource(new Source(server, List.of(), reason)));
        return registry;
    }

    private ToolOutcome call(String server, String tool, JsonNode arguments) {
        String id = "tool-" + (++calls);
        ToolActivities tools = Workflow.newActivityStub(ToolActivities.class, options);
        ObjectNode object = arguments instanceof ObjectNode o ? o : Json.MAPPER.createObjectNode();
        try {
            return tools.call(new ToolCallInput(server, tool, object, runId + "/" + id, run.get()));
        } catch (ActivityFailure failure) {
            if (failure.getCause() instanceof CanceledFailure) {
                onCancel.run();
                return ToolOutcome.failure("the call was cancelled");
            }
            if (failure.getCause() instanceof ApplicationFailure application
                    && ToolActivitiesImpl.INTERCEPTOR_FAILED.equals(application.getType())) {
                throw new InterceptorFailedOnWorker(application.getOriginalMessage());
            }
            return ToolOutcome.failure("tool " + tool + " could not be run: " + failure.getCause().getMessage());
        } catch (CanceledFailure e) {
            onCancel.run();
            return ToolOutcome.failure("the call was cancelled");
        }
    }

    /**
     * A worker's tool interceptor failed: the call's outcome carries it to the workflow's
     * {@code WorkerFailures} interceptor, which ends the run {@code error} with it.
     */
    static final class InterceptorFailedOnWorker extends RuntimeException {
        InterceptorFailedOnWorker(String message) {
            super(message, null, false, false);
        }
    }

    private record Source(String serverName, List<Tool> list, String reason) implements ToolSource {
        @Override
        public List<Tool> tools() throws ToolException {
            if (reason != null) {
                throw new ToolException(reason);
            }
            return list;
        }
    }

    /** A worker's tool, as recorded; its calls are activities. */
    private final class Remote implements Tool {
        private final CatalogEntry entry;

        Remote(CatalogEntry entry) {
            this.entry = entry;
        }

        @Override
        public String name() {
            return entry.toolName();
        }

        @Override
        public String description() {
            return entry.description() == null ? "" : entry.description();
        }

        @Override
        public JsonNode inputSchema() {
            return entry.inputSchema();
        }

        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) throws ToolException {
            ToolOutcome outcome = RemoteTools.this.call(entry.serverName(), entry.toolName(), arguments);
            if (outcome.error() != null) {
                throw new ToolException(outcome.error());
            }
            return ToolResult.of(outcome.text());
        }
    }
}
