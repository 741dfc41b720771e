package dev.bellows.temporal;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.RunContext;
import java.time.Instant;
import java.util.Objects;

/**
 * A durable run that has ended, as the worker that ended it tells its
 * {@linkplain DurableWorker.Builder#onRunEnded listener}: once per run, never when the run
 * replays. What a tracer needs to record the run's own span after the fact
 * (bellows-opentelemetry's {@code BellowsTelemetry.recordEndedRun}).
 *
 * @param run         the run as the loop's interceptors saw it (agent name, task), its session
 *                    name the one the run was started in ({@link DurableAgent#start(String, String)}),
 *                    else none
 * @param result      how the run ended; for a run that waited for approval and was resumed, how
 *                    the resumed run ended
 * @param workflowId  the run's workflow id
 * @param runId       its Temporal run id
 * @param traceparent the W3C {@code traceparent} of the run's span: the parent the worker
 *                    interceptors' calls were given ({@link DurableWorker.Builder#modelInterceptor})
 * @param started     when the workflow started
 * @param ended       when it ended (the workflow's time at its last step)
 */
public record EndedRun(RunContext run, AgentResult result, String workflowId, String runId, String traceparent,
                       Instant started, Instant ended) {

    public EndedRun {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(workflowId, "workflowId");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(traceparent, "traceparent");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(ended, "ended");
    }
}
