package dev.bellows.temporal.internal;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.agent.RunContext;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.tool.PreparedCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolResult;
import io.temporal.activity.ActivityInfo;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BooleanSupplier;

/**
 * A worker's own interceptors around the calls its activities make: each attempt of a model
 * call, each tool call, once per execution of the activity, on the worker, never in the
 * replaying workflow. What they see of the run is what the worker knows ({@link Run}): the
 * agent's name, and in {@link RunContext#attributes()} the run's trace context as a W3C
 * {@code traceparent} under {@value #TRACE_PARENT} (the same for every call of the run, on any
 * worker: {@link RunTrace}) and, for a retry, the failed attempt's {@code error.type} under
 * {@value #LAST_FAILURE}. A tracer that reads these (bellows-opentelemetry's) makes the calls'
 * spans children of the run's span.
 */
public final class WorkerCalls {

    /** The run attribute that holds the run's {@code traceparent}. */
    public static final String TRACE_PARENT = "traceparent";
    /** The run attribute that holds, for a retry, the {@code error.type} of the attempt before it. */
    public static final String LAST_FAILURE = "bellows.model.last_failure";

    private WorkerCalls() {
    }

    /** The run a call on this worker belongs to, as its interceptors see it. */
    static RunContext run(ActivityInfo info, String agentName, String lastFailure, BooleanSupplier cancelled) {
        String runId = info.getWorkflowRunId() != null ? info.getWorkflowRunId() : info.getRunId();
        return run(info.getWorkflowNamespace(), info.getWorkflowId(), runId, agentName, lastFailure, cancelled);
    }

    /** The same, from the workflow's own ids (the run's end, on the worker that takes it). */
    static RunContext run(String namespace, String workflowId, String runId, String agentName, String lastFailure,
                          BooleanSupplier cancelled) {
        Run run = new Run(agentName == null ? "bellows" : agentName, cancelled);
        run.attributes.put(TRACE_PARENT, RunTrace.traceparent(namespace, workflowId, runId));
        if (lastFailure != null) {
            run.attributes.put(LAST_FAILURE, lastFailure);
        }
        return run;
    }

    /** {@code request} to {@code provider} through {@code interceptors}, the first outermost. */
    static ChatStream model(List<ModelInterceptor> interceptors, Provider provider, RunContext run, int attempt,
                            ChatRequest request) throws ProviderException {
        return new Model(interceptors, 0, provider, run, attempt, request).proceed(request);
    }

    /** A prepared call through {@code interceptors}, the first outermost; then the tool. */
    static ToolCallOutcome tool(List<ToolInterceptor> interceptors, RunContext run, String callId, PreparedCall prepared,
                                BooleanSupplier cancelled) {
        return new Tool_(interceptors, 0, run, callId, prepared, prepared.call(), cancelled).proceed();
    }

    /**
     * A call the workflow's loop made itself (a built-in tool: {@code task_completion}), told to
     * {@code interceptors} after the fact, on the worker that ends the run, never on replay: a
     * tracer makes its {@code execute_tool} span as for a local run. The call is not made again:
     * the chain's end gives its recorded outcome.
     */
    static ToolCallOutcome recorded(List<ToolInterceptor> interceptors, RunContext run, String callId, Tool tool,
                                    ToolCall call, ToolCallOutcome outcome) {
        return new Recorded(interceptors, 0, run, callId, tool, call, outcome).proceed();
    }

    private record Recorded(List<ToolInterceptor> interceptors, int index, RunContext run, String callId, Tool tool,
                            ToolCall call, ToolCallOutcome outcome) implements ToolInterceptor.Chain {

        @Override
        public ToolCallOutcome proceed() {
            if (index == interceptors.size()) {
                return outcome;
            }
            ToolCallOutcome seen = interceptors.get(index).intercept(new Recorded(interceptors, index + 1, run, callId,
                    tool, call, outcome));
            return seen == null ? outcome : seen;
        }

        @Override
        public ToolCallOutcome proceed(ObjectNode arguments) {
            return proceed();           // made already, with the model's arguments
        }

        @Override
        public ToolCallOutcome.Succeeded respond(ToolResult<?> result) {
            throw new UnsupportedOperationException("the run's " + call.toolName() + " call was made already");
        }

        @Override
        public ToolCallOutcome.Deferred defer() {
            throw new UnsupportedOperationException("the run's " + call.toolName() + " call was made already");
        }
    }

    /** What the worker knows of a run. The task is the workflow's: not here (empty). */
    private record Run(String agentName, BooleanSupplier cancelled, ConcurrentMap<String, Object> attributes)
            implements RunContext {

        Run(String agentName, BooleanSupplier cancelled) {
            this(agentName, cancelled, new ConcurrentHashMap<>());
        }

        @Override
        public Optional<String> sessionName() {
            return Optional.empty();
        }

        @Override
        public String task() {
            return "";
        }

        @Override
        public int iteration() {
            return 0;
        }

        @Override
        public boolean isCancelled() {
            return cancelled.getAsBoolean();
        }
    }

    private record Model(List<ModelInterceptor> interceptors, int index, Provider provider, RunContext run,
                         int attempt, ChatRequest request) implements ModelInterceptor.Chain {

        @Override
        public String providerName() {
            return provider.name();
        }

        @Override
        public Optional<URI> providerEndpoint() {
            return provider.apiEndpoint();
        }

        @Override
        public ChatStream proceed(ChatRequest next) throws ProviderException {
            if (index == interceptors.size()) {
                return provider.stream(next);
            }
            ChatStream stream = interceptors.get(index).intercept(new Model(interceptors, index + 1, provider, run,
                    attempt, next));
            if (stream == null) {
                throw new IllegalStateException("model interceptor " + interceptors.get(index).getClass().getName()
                        + " returned no stream");
            }
            return stream;
        }
    }

    private record Tool_(List<ToolInterceptor> interceptors, int index, RunContext run, String callId,
                         PreparedCall prepared, ToolCall call, BooleanSupplier cancelled) implements ToolInterceptor.Chain {

        @Override
        public Tool tool() {
            return prepared.tool();
        }

        @Override
        public ToolCallOutcome proceed() {
            if (index == interceptors.size()) {
                return call == prepared.call() ? prepared.run(cancelled) : prepared.run(call.arguments(), cancelled);
            }
            ToolCallOutcome outcome = interceptors.get(index).intercept(new Tool_(interceptors, index + 1, run, callId,
                    prepared, call, cancelled));
            if (outcome == null) {
                throw new IllegalStateException("tool interceptor " + interceptors.get(index).getClass().getName()
                        + " returned no outcome");
            }
            return outcome;
        }

        @Override
        public ToolCallOutcome proceed(ObjectNode arguments) {
            ObjectNode checked;
            try {
                checked = prepared.check(arguments);
            } catch (dev.bellows.tool.InvalidArgumentsException e) {
                return new ToolCallOutcome.Failed(call, e.getMessage(), e);
            }
            return new Tool_(interceptors, index, run, callId, prepared,
                    new ToolCall(call.serverName(), call.toolName(), checked), cancelled).proceed();
        }

        @Override
        public ToolCallOutcome.Succeeded respond(ToolResult<?> result) {
            return prepared.respond(call.arguments(), result);
        }

        /** The workflow decided on approvals before the call got here: a worker's call cannot wait. */
        @Override
        public ToolCallOutcome.Deferred defer() {
            throw new UnsupportedOperationException("a durable run's tool call cannot be deferred on the worker:"
                    + " approvals are the workflow's (DefaultAgent.Builder#requireApproval in the worker's loop settings)");
        }
    }
}
