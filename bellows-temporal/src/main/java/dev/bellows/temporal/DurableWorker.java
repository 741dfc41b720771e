package dev.bellows.temporal;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.format.OutputFormat;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.internal.ModelActivitiesImpl;
import dev.bellows.temporal.internal.RunWorkflow;
import dev.bellows.temporal.internal.RunWorkflowImpl;
import dev.bellows.temporal.internal.SessionActivitiesImpl;
import dev.bellows.temporal.internal.ToolActivitiesImpl;
import dev.bellows.temporal.internal.WorkerSetup;
import dev.bellows.tool.ToolRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A Temporal worker that carries out durable runs (see docs/temporal.md): the agent loop as a
 * workflow, each model call and each tool call an activity, on one task queue. The model, its
 * key, the tools and the loop's settings live here, on the worker: a client starting a run sends
 * the task alone, and nothing secret enters a workflow's history.
 *
 * <pre>{@code
 * WorkflowClient client = DurableAgent.client(WorkflowServiceStubs.newServiceStubs(
 *         WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:7233").build()), "default");
 * try (DurableWorker worker = DurableWorker.builder(client)
 *         .provider(provider)                       // without retries: the loop retries
 *         .tools(registry)
 *         .loop(b -> b.model("gpt-4o-mini").maxIterations(25))
 *         .build()) {
 *     worker.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>Every worker of a task queue must be configured alike (same loop settings, same tools):
 * any of them may take any step of any run. A run replays on whichever worker holds it, so a
 * change to the loop's code or settings that changes its decisions needs Temporal's worker
 * versioning (docs/temporal.md says how). Thread-safe; {@link #close()} stops polling and waits
 * for the activities in flight a short while.
 */
public final class DurableWorker implements AutoCloseable {

    /** The task queue when none is given, as the CLI's {@code --task-queue}. */
    public static final String DEFAULT_TASK_QUEUE = "bellows";

    private final WorkerFactory factory;
    private final String taskQueue;

    private DurableWorker(Builder b) {
        WorkerSetup setup = new WorkerSetup(b.loop, b.retryPolicy, b.tools, b.heartbeatTimeout, b.modelCallTimeout,
                b.toolCallTimeout, b.agents, b.agentName);
        // A worker-side agent configured as the runs are: it reads answers while they stream, for followers.
        DefaultAgent.Builder readers = DefaultAgent.builder();
        b.loop.accept(readers);
        readers.provider(b.provider).toolRegistry(b.tools);
        if (b.agents != null) {
            // Shaped as the runs' agent is (its tool mode, the agents it calls), so that it reads an answer as the run does.
            b.agents.configure(readers, new RunAgents.Parts() {
                @Override
                public ToolRegistry tools() {
                    return b.tools;
                }

                @Override
                public Provider provider() {
                    return b.provider;
                }

                @Override
                public DefaultAgent.Builder builder() {
                    return DefaultAgent.builder().provider(b.provider);
                }
            });
        }
        DefaultAgent reader = readers.build();
        this.taskQueue = b.taskQueue;
        this.factory = WorkerFactory.newInstance(b.client, WorkerFactoryOptions.newBuilder()
                .setWorkflowCacheSize(b.workflowCacheSize).build());
        WorkerOptions.Builder options = WorkerOptions.newBuilder()
                // Live events go out at most this late; each is one heartbeat call to the server.
                .setMaxHeartbeatThrottleInterval(ModelActivitiesImpl.HEARTBEAT_EVERY)
                .setDefaultHeartbeatThrottleInterval(ModelActivitiesImpl.HEARTBEAT_EVERY)
                .setMaxConcurrentActivityExecutionSize(b.maxConcurrentCalls)
                .setUsingVirtualThreadsOnActivityWorker(true);
        if (b.workflowCacheSize == 0) {
            // No cache, no sticky queue. The SDK asks for one even with an empty cache, and the server then
            // sends a run's next step to the worker that took its last one, which keeps nothing to use it
            // for; were that worker dead, the step would wait there: 5 s on a cluster, and for ever on
            // Temporal's Java test server, which never moves a step off a sticky queue. A timeout of zero
            // is the SDK's way to ask for none. Each step then replays the run's history, which costs the
            // loop re-reading its recorded answers, microseconds each.
            options.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
        }
        Worker worker = factory.newWorker(taskQueue, options.build());
        worker.registerWorkflowImplementationFactory(RunWorkflow.class, () -> new RunWorkflowImpl(setup, b.runEnded, b.toolInterceptors));
        worker.registerActivitiesImplementations(
                new ModelActivitiesImpl(b.provider, reader.machine(reader.session())::reader, b.modelInterceptors),
                new ToolActivitiesImpl(b.tools, b.outputFormat, b.toolInterceptors), new SessionActivitiesImpl(b.client));
    }

    public static Builder builder(WorkflowClient client) {
        return new Builder(client);
    }

    /** Starts polling the task queue. */
    public void start() {
        factory.start();
    }

    public String taskQueue() {
        return taskQueue;
    }

    /** Stops taking work, and waits up to ten seconds for what is in flight. */
    @Override
    public void close() {
        factory.shutdown();
        factory.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        factory.shutdownNow();
    }

    /** Builds a {@link DurableWorker}. */
    public static final class Builder {
        private final WorkflowClient client;
        private String taskQueue = DEFAULT_TASK_QUEUE;
        private Provider provider;
        private ToolRegistry tools = new ToolRegistry();
        private Consumer<DefaultAgent.Builder> loop = b -> { };
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private OutputFormat outputFormat = OutputFormat.JSON;
        private Duration heartbeatTimeout = Duration.ofSeconds(20);
        private Duration modelCallTimeout = Duration.ofHours(1);
        private Duration toolCallTimeout = Duration.ofHours(1);
        private int maxConcurrentCalls = 200;
        private int workflowCacheSize;
        private final List<ModelInterceptor> modelInterceptors = new ArrayList<>();
        private final List<ToolInterceptor> toolInterceptors = new ArrayList<>();
        private Consumer<EndedRun> runEnded;
        private RunAgents agents;
        private String agentName;

        private Builder(WorkflowClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        public Builder taskQueue(String taskQueue) {
            this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue");
            return this;
        }

        /** The model's provider, used by the model-call activities; without retries of its own. */
        public Builder provider(Provider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** The worker's tools (MCP servers, local tools); the loop's built-ins come on their own. */
        public Builder tools(ToolRegistry tools) {
            this.tools = Objects.requireNonNull(tools, "tools");
            return this;
        }

        /**
         * The loop's settings, applied to a fresh builder for each run (and for the reader of live
         * answers): model, tool mode, instructions, limits, stream options, memory. Leave out the
         * provider, the tools and listeners: the worker sets those. Must not read anything that
         * differs between workers or over time (it runs again when a run replays).
         */
        public Builder loop(Consumer<DefaultAgent.Builder> loop) {
            this.loop = Objects.requireNonNull(loop, "loop");
            return this;
        }

        /**
         * Around each attempt of a model call this worker makes, in its model-call activity: once
         * per attempt, on the worker that makes it, never when a run replays (unlike the loop's
         * own interceptors, which the workflow runs again at every step). Added in order, the
         * first outermost, in the same chain as a local run's. The interceptor sees the run as the
         * loop's own interceptors do in the workflow (the agent's name, the session, the task, the
         * iteration: the workflow sends them with each call), with
         * {@link dev.bellows.agent.RunContext#attributes()} holding the run's W3C
         * {@code traceparent} under {@link dev.bellows.agent.RunContext#TRACE_PARENT} (the same on every worker for one run:
         * derived from its namespace, workflow id and run id) and, for a retry, the failed
         * attempt's {@code error.type} under {@link dev.bellows.agent.RunContext#LAST_FAILURE}.
         * bellows-opentelemetry's
         * {@code BellowsTelemetry.modelInterceptor()} reads them: its {@code chat} spans are the
         * run's trace's, children of the run's span (docs/temporal.md, "Traces").
         */
        public Builder modelInterceptor(ModelInterceptor interceptor) {
            modelInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Around each tool call this worker runs, in its tool-call activity, once the tool is found
         * and the arguments checked: once per execution, never when a run replays. It sees the
         * run as {@link #modelInterceptor} says; {@code chain.callId()} is the call's id in the
         * durable run ({@code WORKFLOW_ID/tool-N}), and a call cannot wait here: one an interceptor
         * defers fails, its text what the model reads (approvals are decided in the workflow,
         * before the call reaches a worker).
         */
        public Builder toolInterceptor(ToolInterceptor interceptor) {
            toolInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Told of each run this worker ends, once, on the workflow's thread at the run's last
         * step (never when a run replays; a worker that dies between telling and recording the
         * step can have the next worker tell it again). It must return at once and must not
         * block (a tracer's {@code span.end()} queues the span); what it throws is logged and
         * changes nothing of the run. A run terminated from outside, or whose workflow fails
         * rather than ending the loop, is not told.
         */
        public Builder onRunEnded(Consumer<EndedRun> listener) {
            this.runEnded = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The runs' agent as {@code agents} shapes it in each run's workflow, with the agents it
         * calls, which run inside the same workflow (their model and tool calls activities of the
         * run). {@code name} is the agent's name: a client that names an agent
         * ({@link DurableAgent.Builder#agent}) is served by workers of that agent only (its run
         * ends {@code error} on another).
         */
        public Builder agents(String name, RunAgents agents) {
            this.agentName = Objects.requireNonNull(name, "name");
            this.agents = Objects.requireNonNull(agents, "agents");
            return this;
        }

        /** The loop's retries of a model call; a call lost with its worker counts as one. */
        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /** How tools' non-string outputs are rendered; the loop's own setting, if changed there. */
        public Builder outputFormat(OutputFormat outputFormat) {
            this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
            return this;
        }

        /** How long an activity may go without a heartbeat before another worker takes it over (default 20 s). */
        public Builder heartbeatTimeout(Duration timeout) {
            this.heartbeatTimeout = positive(timeout, "heartbeatTimeout");
            return this;
        }

        /** The longest one attempt of a model call may take (default 1 h). */
        public Builder modelCallTimeout(Duration timeout) {
            this.modelCallTimeout = positive(timeout, "modelCallTimeout");
            return this;
        }

        /** The longest one tool call may take (default 1 h). */
        public Builder toolCallTimeout(Duration timeout) {
            this.toolCallTimeout = positive(timeout, "toolCallTimeout");
            return this;
        }

        /** How many model and tool calls this worker runs at once (default 200). */
        public Builder maxConcurrentCalls(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("maxConcurrentCalls must be at least 1, got " + calls);
            }
            this.maxConcurrentCalls = calls;
            return this;
        }

        /**
         * How many runs this worker keeps in memory between their steps (default 0: each step
         * replays the run's history, which costs the loop re-reading its recorded answers). Above
         * 0 a run's steps stick to the worker that has it cached, which saves the replays on a real
         * cluster; Temporal's Java test server never moves a step off a dead worker's sticky queue,
         * so keep 0 there.
         */
        public Builder workflowCacheSize(int runs) {
            if (runs < 0) {
                throw new IllegalArgumentException("workflowCacheSize cannot be negative, got " + runs);
            }
            this.workflowCacheSize = runs;
            return this;
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + d);
            }
            return d;
        }

        public DurableWorker build() {
            if (provider == null) {
                throw new IllegalStateException("a provider is needed: the model calls run on the worker");
            }
            return new DurableWorker(this);
        }
    }
}
