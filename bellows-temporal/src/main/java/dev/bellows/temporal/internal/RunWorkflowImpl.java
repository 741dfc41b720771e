package dev.bellows.temporal.internal;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.agent.RunContext;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.temporal.EndedRun;
import dev.bellows.temporal.RunAgents;
import dev.bellows.tool.ToolRegistry;
import io.temporal.workflow.WorkflowInfo;
import java.time.Instant;
import java.util.function.Consumer;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The agent loop as a workflow: the one loop of bellows-core, run on the workflow's thread, with
 * a provider whose attempts are model-call activities, tools whose calls are tool-call
 * activities, the retry waits as durable timers and the jitter from the workflow's seeded
 * random. Every decision the loop takes follows from the task and the recorded results, so a
 * replay on any worker takes the same ones. The loop's events go to the run's {@link EventLog}.
 *
 * <p>A run that stops at calls waiting for approval ({@code interrupted}) does not end the
 * workflow: it waits, holding no activity and no worker, for the {@code decide} update, then
 * carries the stopped run on in the same session ({@link DefaultAgent#resumeBlocking}), which
 * runs each approved call once. Cancelling the workflow while it waits gives the run up
 * ({@link DefaultAgent#cancelWaiting}).
 */
public final class RunWorkflowImpl implements RunWorkflow {

    private static final System.Logger LOG = System.getLogger(RunWorkflowImpl.class.getName());

    private static final ObjectMapper ARGUMENTS = Jackson.JSON;

    private final WorkerSetup setup;
    private final Consumer<EndedRun> ended;
    private final EventLog log = new EventLog();
    private RunContext runContext;      // the run as its interceptors see it, for the listener of its end
    private RunContext speaking;        // the run of the agent making calls now: the run's, or a sub-agent's
    private String sessionName;         // the session the run belongs to, or null
    private Session session;            // the agent's own: its builder memory's, when the loop's settings give one
    private List<Decision> decided;     // the decisions the update brought, until the run is resumed with them
    private boolean waiting;            // the run stopped at calls waiting for approval; no decisions yet
    private DefaultAgent agent;         // the run's loop, once built

    public RunWorkflowImpl(WorkerSetup setup) {
        this(setup, null);
    }

    /** @param ended told once, by the worker that ends the run, never on replay; or null */
    public RunWorkflowImpl(WorkerSetup setup, Consumer<EndedRun> ended) {
        this(setup, ended, List.of());
    }

    /**
     * @param toolInterceptors the worker's own: told of the run's {@code task_completion} call,
     *                         which the loop makes in the workflow, once the run has ended
     */
    public RunWorkflowImpl(WorkerSetup setup, Consumer<EndedRun> ended, List<ToolInterceptor> toolInterceptors) {
        this.setup = setup;
        this.ended = ended;
        this.toolInterceptors = List.copyOf(toolInterceptors);
    }

    private final List<ToolInterceptor> toolInterceptors;
    /** The run's task_completion call, made by the loop in the workflow (no activity); null before it. */
    private Completion completion;

    private record Completion(String callId, Tool tool, ToolCall call, ToolCallOutcome outcome) {
    }

    @Override
    public RunOutcome run(RunInput input) {
        sessionName = input.session();
        WorkerSetup.Catalog catalog = Workflow.sideEffect(WorkerSetup.Catalog.class, setup::catalog);
        ActivityProvider models = new ActivityProvider(setup, log);
        RemoteTools tools = new RemoteTools(setup, Workflow.getInfo().getWorkflowId(), models::cancelled,
                () -> speaking == null ? null : new ToolCallInput.RunInfo(speaking.agentName(), sessionName,
                        speaking.task(), speaking.iteration()));
        RetryingProvider provider = new RetryingProvider(models, setup.retryPolicy(),
                notice -> models.retrying(notice.attempt()), sleeper(models), Workflow.newRandom());
        DefaultAgent.Builder builder = DefaultAgent.builder();
        setup.loop().accept(builder);
        ToolRegistry recorded = tools.registry(catalog);
        builder.provider(provider).toolRegistry(recorded);
        if (setup.agents() != null) {
            if (input.agent() != null && !input.agent().equals(setup.agentName())) {
                return wrongAgent(input, "the workers of this task queue run the agent " + setup.agentName()
                        + ", not " + input.agent());
            }
            RetryingProvider nested = new RetryingProvider(models.nested(), setup.retryPolicy(),
                    notice -> models.retrying(notice.attempt()), sleeper(models), Workflow.newRandom());
            setup.agents().configure(inWorkflow(builder), new RunAgents.Parts() {
                @Override
                public ToolRegistry tools() {
                    return recorded;
                }

                @Override
                public dev.bellows.provider.Provider provider() {
                    return nested;
                }

                @Override
                public DefaultAgent.Builder builder() {
                    // The worker's interceptors see a sub-agent's calls as its own run's (its name, task, iteration).
                    return inWorkflow(DefaultAgent.builder().provider(nested)).runInterceptor(chain -> {
                        RunContext outer = speaking;
                        speaking = chain.run();
                        models.run(chain.run(), sessionName);
                        try {
                            return chain.proceed();
                        } finally {
                            speaking = outer;
                            models.run(outer, sessionName);
                        }
                    });
                }
            });
        } else if (input.agent() != null) {
            return wrongAgent(input, "the workers of this task queue run no configured agent, not " + input.agent()
                    + " (start them with it: bellows worker --agent " + input.agent() + ")");
        } else {
            builder.toolInterceptor(WorkerFailures.INSTANCE);       // inWorkflow adds it for a run of agents
        }
        agent = builder
                .listener(log::add)
                // Learns the run (agent, task, iteration) for the calls' interceptors on the workers; no side effect.
                // Keeps the task_completion call for the workers' interceptors at the run's end; no side effect.
                .toolInterceptor(chain -> {
                    ToolCallOutcome outcome = chain.proceed();
                    if (BuiltinTools.TASK_COMPLETION.equals(chain.call().toolName())) {
                        completion = new Completion(chain.callId(), chain.tool(), chain.call(), outcome);
                    }
                    return outcome;
                })
                .runInterceptor(chain -> {
                    runContext = chain.run();
                    speaking = chain.run();
                    models.run(chain.run(), sessionName);
                    return chain.proceed();
                })
                .build();
        session = agent.session();
        if (input.previous() != null) {
            // A run of a session: the conversation goes on from where the session's last run left it.
            Conversation earlier = Workflow.newActivityStub(SessionActivities.class, ActivityOptions.newBuilder()
                    .setStartToCloseTimeout(Duration.ofMinutes(1))
                    .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
                    .build()).conversation(input.previous());
            earlier.turns().forEach(session.memory()::addTurn);
        }
        AgentResult result = agent.runBlocking(input.task(), session);
        while (result.reason() == LoopEndReason.INTERRUPTED) {
            waiting = true;
            try {
                Workflow.await(() -> decided != null);
            } catch (CanceledFailure e) {
                waiting = false;
                result = agent.cancelWaiting(session, "the run was cancelled while it waited for approval");
                break;
            }
            List<Decision> decisions = decided;
            decided = null;
            result = agent.resumeBlocking(session, decisions);
        }
        tellEnded(result);
        return new RunOutcome(result.reason().wireName(), result.result());
    }

    /** The retry policy's waits: durable timers; a cancel while one runs ends the run at the next attempt. */
    private static RetryingProvider.Sleeper sleeper(ActivityProvider models) {
        return delay -> {
            try {
                Workflow.sleep(delay);
            } catch (CanceledFailure e) {
                models.cancelled();     // the next attempt ends the run as cancelled
            }
        };
    }

    /**
     * What every agent of a run needs in the workflow: the workflow's thread for everything (its
     * sub-agents' runs and events, a parallel workflow's branches) and its tool calls one after
     * another (each an activity scheduled from that thread).
     */
    private static DefaultAgent.Builder inWorkflow(DefaultAgent.Builder builder) {
        return builder.executor(Runnable::run).toolInterceptor(OneAtATime.INSTANCE).toolInterceptor(WorkerFailures.INSTANCE);
    }

    /**
     * A call whose worker's tool interceptor failed ends the run {@code error}, as an interceptor's
     * failure does in a local run: the worker's failure, which the call's outcome carries, is
     * thrown again here, in the workflow's chain, and its message names the worker's interceptor.
     */
    private enum WorkerFailures implements ToolInterceptor {
        INSTANCE;

        @Override
        public ToolCallOutcome intercept(Chain chain) {
            ToolCallOutcome outcome = chain.proceed();
            if (outcome instanceof ToolCallOutcome.Failed failed
                    && failed.cause() instanceof RemoteTools.InterceptorFailedOnWorker onWorker) {
                throw onWorker;
            }
            return outcome;
        }
    }

    /** Asks for the calls of an answer one after another; changes nothing else. */
    private enum OneAtATime implements ToolInterceptor {
        INSTANCE;

        @Override
        public ToolCallOutcome intercept(Chain chain) {
            return chain.proceed();
        }

        @Override
        public boolean allowsParallelCalls() {
            return false;
        }
    }

    /** A run asking for an agent these workers do not serve: it ends {@code error} at once, saying so. */
    private RunOutcome wrongAgent(RunInput input, String why) {
        log.add(new dev.bellows.event.LoopEvent.LoopStart(input.task()));
        log.add(new dev.bellows.event.LoopEvent.LoopEnd(LoopEndReason.ERROR, why));
        return new RunOutcome(LoopEndReason.ERROR.wireName(), why);
    }

    /** The run's end to the worker's listener: by the worker that ends it, not by one that replays it. */
    private void tellEnded(AgentResult result) {
        if (ended == null || runContext == null || Workflow.isReplaying()) {
            return;
        }
        WorkflowInfo info = Workflow.getInfo();
        if (completion != null && result.reason() == LoopEndReason.TASK_COMPLETION && !toolInterceptors.isEmpty()) {
            try {
                ToolInterceptor.replay(toolInterceptors, WorkerRun.of(info.getNamespace(), info.getWorkflowId(),
                        info.getRunId(), runContext.agentName(), sessionName, runContext.task(), runContext.iteration(),
                        null, () -> false), info.getWorkflowId() + "/" + completion.callId(), completion.tool(),
                        completion.call(), completion.outcome());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a tool interceptor failed on the run's task_completion", e);
            }
        }
        try {
            RunContext run = sessionName == null ? runContext : new SessionRunContext(runContext, sessionName);
            ended.accept(new EndedRun(run, result, info.getWorkflowId(), info.getRunId(),
                    RunTrace.traceparent(info.getNamespace(), info.getWorkflowId(), info.getRunId()),
                    Instant.ofEpochMilli(info.getRunStartedTimestampMillis()),
                    Instant.ofEpochMilli(Workflow.currentTimeMillis())));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "the listener of ended runs failed", e);
        }
    }

    @Override
    public EventPage events(long from) {
        return log.page(from);
    }

    @Override
    public Conversation conversation() {
        return new Conversation(session == null ? List.of() : session.memory().turns());
    }

    @Override
    public void checkDecisions(Decisions decisions) {
        if (!waiting) {
            throw new IllegalArgumentException("the run waits for no approval" + (log.ended()
                    ? ": it has ended" : " now"));
        }
        Set<String> open = new LinkedHashSet<>();
        for (WaitingCall call : session.waiting()) {
            open.add(call.id());
        }
        Set<String> given = new LinkedHashSet<>();
        for (Decisions.Decided decision : decisions.decisions()) {
            if (!given.add(decision.id())) {
                throw new IllegalArgumentException("two decisions for call " + decision.id()
                        + ": give one per waiting call");
            }
            if (!open.contains(decision.id())) {
                throw new IllegalArgumentException("no call waits with id " + decision.id() + "; the waiting calls: "
                        + String.join(", ", open));
            }
        }
        List<String> missing = new ArrayList<>(open);
        missing.removeAll(given);
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("no decision for waiting call" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + ": every waiting call must be decided at once");
        }
        // The loop's own check besides (edited arguments against the tool's schema): once accepted,
        // decisions that did not fit would fail the workflow's task on every worker, over and over.
        agent.machine(session).checkDecisions(loopDecisions(decisions));
        checkWorkerHasTools(decisions);
    }

    /**
     * Refuses an approval of a call whose tool this worker does not have now (restarted without
     * its MCP server): the run's tools are those recorded at its start, so the loop's own check
     * passes, and the call would only fail in its activity, the approval spent. A validator is
     * never replayed, so it may read the worker's tools as they are.
     */
    private void checkWorkerHasTools(Decisions decisions) {
        Set<String> approved = new LinkedHashSet<>();
        decisions.decisions().stream().filter(Decisions.Decided::approved).forEach(d -> approved.add(d.id()));
        for (WaitingCall call : session.waiting()) {
            if (approved.contains(call.id()) && call.kind() == WaitingCall.Kind.APPROVAL
                    && setup.tools().find(call.serverName(), call.toolName()).isEmpty()) {
                throw new dev.bellows.agent.MissingToolException(call.id(), call.serverName(), call.toolName());
            }
        }
    }

    @Override
    public long decide(Decisions decisions) {
        List<Decision> list = loopDecisions(decisions);
        waiting = false;
        decided = list;
        return log.size();          // the resumed run's loop_start comes next
    }

    private static List<Decision> loopDecisions(Decisions decisions) {
        List<Decision> list = new ArrayList<>();
        for (Decisions.Decided decision : decisions.decisions()) {
            if (!decision.approved()) {
                list.add(Decision.deny(decision.id(), decision.reason()));
            } else if (decision.arguments() == null) {
                list.add(Decision.approve(decision.id()));
            } else {
                list.add(Decision.approve(decision.id(), editedArguments(decision)));
            }
        }
        return list;
    }

    private static ObjectNode editedArguments(Decisions.Decided decision) {
        JsonNode arguments;
        try {
            arguments = ARGUMENTS.readTree(decision.arguments());
        } catch (JacksonException e) {
            arguments = null;
        }
        if (!(arguments instanceof ObjectNode object)) {
            throw new IllegalArgumentException("the edited arguments of call " + decision.id() + " are not a JSON object");
        }
        return object;
    }
}
