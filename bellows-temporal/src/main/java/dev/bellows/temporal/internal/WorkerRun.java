package dev.bellows.temporal.internal;

import dev.bellows.agent.RunContext;
import io.temporal.activity.ActivityInfo;
import java.util.function.BooleanSupplier;

/**
 * The run a call on a worker belongs to, as the worker's own interceptors see it (they run in
 * core's chains: {@code ModelInterceptor.proceed}, {@code ToolInterceptor.proceed}): what the
 * workflow's loop knows of it when it schedules the call (the agent's name, the session, the
 * task, the iteration), and in {@link RunContext#attributes()} the run's trace context under
 * {@link RunContext#TRACE_PARENT} (the same for every call of the run, on any worker:
 * {@link RunTrace}) and, for a retry, the failed attempt's {@code error.type} under
 * {@link RunContext#LAST_FAILURE}. A tracer that reads these (bellows-opentelemetry's) makes the
 * calls' spans children of the run's span.
 */
final class WorkerRun {

    private WorkerRun() {
    }

    /** The run of the activity under way. */
    static RunContext of(ActivityInfo info, String agentName, String session, String task, int iteration,
                         String lastFailure, BooleanSupplier cancelled) {
        String runId = info.getWorkflowRunId() != null ? info.getWorkflowRunId() : info.getRunId();
        return of(info.getWorkflowNamespace(), info.getWorkflowId(), runId, agentName, session, task, iteration,
                lastFailure, cancelled);
    }

    /** The same, from the workflow's own ids (the run's end, on the worker that takes it). */
    static RunContext of(String namespace, String workflowId, String runId, String agentName, String session,
                         String task, int iteration, String lastFailure, BooleanSupplier cancelled) {
        RunContext run = RunContext.of(agentName == null ? "bellows" : agentName, session, task == null ? "" : task,
                iteration, cancelled);
        run.attributes().put(RunContext.TRACE_PARENT, RunTrace.traceparent(namespace, workflowId, runId));
        if (lastFailure != null) {
            run.attributes().put(RunContext.LAST_FAILURE, lastFailure);
        }
        return run;
    }
}
