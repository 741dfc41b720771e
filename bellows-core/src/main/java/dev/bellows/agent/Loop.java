package dev.bellows.agent;

import dev.bellows.event.AgentEvent;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.provider.ChatRequest;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;

/**
 * One run in this process: the driver of the run's {@link AgentMachine}. It applies each
 * transition's effects to the session and the run's listeners, and does its steps: the model
 * call (through the agent's retries and model interceptors, the answer read as it streams),
 * the answer's calls (through one chain of tool interceptors, approvals' first, {@link ToolBatch}), the
 * checks for cancellation between them; around it all, the run interceptors and exactly one
 * {@code loop_start} and one {@code loop_end}.
 *
 * <p>It is also the run's {@link RunContext} for the interceptors: nothing more is made for
 * them, and nothing at all when an agent has none. The task and the iteration are the
 * machine's.
 */
final class Loop implements Runnable, RunContext {

    private final AgentOptions options;
    private final Protocol protocol;
    private final Session session;
    private final RunHandle run;
    private final String task;
    private final AgentMachine machine;
    /** The waiting run this one carries on, or null for a new task. */
    private final Suspension resumeFrom;
    /** The resume's decisions, by call id, in the order given. */
    private final Map<String, Decision> decisions;
    /** A resume that gives the waiting run up: no call runs, nothing goes to the model. */
    private final boolean givingUp;
    /** The run's external tools (see {@link DefaultAgent#run(String, Session, List)}): their calls wait. */
    private final List<Tool> external;
    /** The names of the external tools (local ones). */
    private final Set<String> externalNames;
    /** The tool interceptors of this run: the agent's, after the one that defers external calls ({@link ExternalCalls}) when there are any. */
    private final List<ToolInterceptor> toolInterceptors;
    /** Where the run stands: the machine's last state. */
    private volatile MachineState state = MachineState.initial();
    private volatile ConcurrentMap<String, Object> attributes;
    /** The retries around the model interceptors, made for the run's first model call when there are any. */
    private RetryingProvider intercepted;
    /** How this run's tool steps are done: the agent's approvals and interceptors, with the run's external tools. */
    private final ToolStep toolStep;
    /** The interceptors around each whole model call, made for the run's first call when there are any. */
    private Provider wholeCalls;
    /** The attempts of the model request under way. */
    private int attempts;
    /** The tool call of another run this one works inside (a sub-agent's), or null. */
    private final ParentCall parentCall;
    /** The budgets of the trees this run belongs to (its callers', its own), and those with its own limits. */
    private List<Budget> tree;
    private List<Budget> budgets;

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion) {
        this(options, protocol, session, run, task, completion, null, Map.of(), false);
    }

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion,
         Suspension resumeFrom, Map<String, Decision> decisions, boolean givingUp) {
        this(options, protocol, session, run, task, completion, resumeFrom, decisions, givingUp, List.of());
    }

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion,
         Suspension resumeFrom, Map<String, Decision> decisions, boolean givingUp, List<Tool> external) {
        // made on the thread that starts the run: inside a tool call, that call's (AgentTool); a
        // workflow run as an agent by itself has no run around its agents
        CallScope caller = CallScope.current();
        this.parentCall = caller == null || caller.run == null ? null : new ParentCall(caller.run, caller.callId);
        this.external = external;
        this.externalNames = new HashSet<>();
        external.forEach(tool -> externalNames.add(tool.name()));
        if (external.isEmpty()) {
            this.toolInterceptors = options.toolInterceptors;
        } else {
            // Before the agent's, so that no interceptor of the agent's runs a call that is not the agent's to run.
            List<ToolInterceptor> all = new ArrayList<>();
            all.add(new ExternalCalls(external));
            all.addAll(options.toolInterceptors);
            this.toolInterceptors = List.copyOf(all);
        }
        this.givingUp = givingUp;
        this.options = options;
        this.protocol = protocol;
        this.session = session;
        this.run = run;
        this.task = task;
        this.resumeFrom = resumeFrom;
        this.decisions = decisions;
        this.machine = new AgentMachine(options, protocol, session, completion, external);
        budgets(session.tree());
        this.toolStep = new ToolStep(toolInterceptors, approvals(), options.approvalHandler, options.parallelToolCalls,
                !options.interceptsTools() && external.isEmpty(), this.run::runTools);
    }

    /** Counts this run in {@code inherited} (its callers' trees) and its own limits: nothing when there are none. */
    private void budgets(List<Budget> inherited) {
        if (inherited.isEmpty() && options.treeLimits == null && options.limits == null) {
            tree = List.of();
            budgets = List.of();
            ownTree = List.of();
            own = List.of();
            return;
        }
        List<Budget> trees = new ArrayList<>(inherited);
        if (options.treeLimits != null) {
            Budget mine = new Budget(options.treeLimits, "the run's agents' together");
            trees.add(mine);
            ownTree = List.of(mine);
        } else {
            ownTree = List.of();
        }
        tree = List.copyOf(trees);
        if (options.limits != null) {
            Budget mine = new Budget(options.limits, "agent " + options.name + "'s");
            trees.add(mine);
            own = List.of(mine);
        } else {
            own = List.of();
        }
        budgets = List.copyOf(trees);
    }

    /** The executor the agent was given for its runs, or null: its own threads are virtual ones. */
    java.util.concurrent.Executor executor() {
        return options.ownExecutor ? null : options.executor;
    }
    /**
     * The budgets whose time this run watches: the tree it begins (its callers watch theirs),
     * and its agent's own limits, which end with its part of the run (a handoff's agent has its own).
     */
    private List<Budget> ownTree;
    private List<Budget> own;

    /** The tree budgets a sub-agent of this run counts in. */
    List<Budget> tree() {
        return tree;
    }

    /** The events of sub-agents running in this run's calls, made for the first: most runs have none. */
    private volatile ForwardedEvents fromTools;

    /**
     * Passes on an event of a sub-agent running in one of this run's tool calls ({@link CallScope}),
     * from any thread: told to the listeners in order, one at a time (the handle takes one emitter
     * at a time), without the call's thread waiting for them.
     */
    void emitFromTool(AgentEvent event) {
        ForwardedEvents events = fromTools;
        if (events == null) {
            synchronized (this) {
                events = fromTools;
                if (events == null) {
                    events = new ForwardedEvents(run::emit, executor());
                    fromTools = events;
                }
            }
        }
        events.offer(event);
    }

    /** Waits until the sub-agents' events passed on so far are told: before the run's thread emits again. */
    void flushFromTools() {
        ForwardedEvents events = fromTools;
        if (events != null) {
            events.flush();
        }
    }

    @Override
    public void run() {
        try {
            LoopEnds.runBetweenStartAndEnd(run, task,
                    () -> options.runInterceptors.isEmpty() ? body() : new RunChain(0).intercepted());
        } finally {
            session.end(run);
        }
    }

    /**
     * The machine's steps, until it ends, cut short when the time of a limit it watches is up:
     * then it ends {@code error}, saying which limit, not {@code cancelled}.
     */
    private LoopEvent.LoopEnd body() {
        TimeLimit trees = TimeLimit.watch(ownTree, run);
        TimeLimit mine = TimeLimit.watch(own, run);
        try {
            LoopEvent.LoopEnd end = steps(mine);
            String cut = run.cutShortBy();
            return cut != null && end.reason() == LoopEndReason.CANCELLED
                    ? new LoopEvent.LoopEnd(LoopEndReason.ERROR, cut) : end;
        } finally {
            mine.stop();
            trees.stop();
        }
    }

    /** The machine's steps, until it ends; {@code mine} (its agent's own time) stops at a handoff. */
    private LoopEvent.LoopEnd steps(TimeLimit mine) {
        try {
            MachineInput input;
            Handoff waits = resumeFrom == null ? HandedRun.waiting(options, session) : null;
            if (waits != null) {
                mine.stop();        // the conversation is the handed agent's: its question is answered
                return HandedRun.answer(waits, task, session, run);
            }
            if (resumeFrom != null) {
                input = new AgentMachine.Resume(resumeFrom, session.resumeLog(), decisions, givingUp);
            } else if (!options.plainChat() && run.isCancelled()) {
                input = MachineInput.cancelled();
            } else {
                input = MachineInput.start(task);
            }
            MachineState at = MachineState.initial();
            while (true) {
                Transition transition = machine.next(at, input);
                at = transition.state();
                state = at;
                for (MachineEffect effect : transition.effects()) {
                    effect.applyTo(session, run::emit);
                }
                switch (transition.step()) {
                    case MachineStep.End end -> {
                        if (end.end().reason() == LoopEndReason.INTERRUPTED) {
                            run.waiting(end.waiting());
                        }
                        return end.end();
                    }
                    case MachineStep.Continue next ->
                            input = run.isCancelled() ? MachineInput.cancelled() : MachineInput.proceed();
                    case MachineStep.CallModel call -> {
                        String spent = budgets.isEmpty() ? null : Budget.beginModelCall(budgets);
                        input = spent != null ? MachineInput.failed(spent) : callModel(call);
                    }
                    case MachineStep.RunTools tools -> input = runTools(tools);
                    case MachineStep.HandOff handOff -> {
                        mine.stop();        // this agent's own limits end with its part of the run
                        return handOff(handOff);
                    }
                }
            }
        } catch (InterceptorFailure e) {
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
        }
    }

    /**
     * Carries the run on with the agent a handoff gave the conversation to: a {@link DefaultAgent}
     * in this run (the same session, events and cancellation; its own options, its run
     * interceptors around what it runs, inside the first agent's), any other agent
     * through {@link HandedRun}. Its end is the run's.
     */
    private LoopEvent.LoopEnd handOff(MachineStep.HandOff step) {
        if (run.isCancelled()) {
            return LoopEnds.cancelled();
        }
        if (step.handoff().agent() instanceof DefaultAgent target) {
            Loop handed = new Loop(target.options, target.protocol, session, run, step.task(), null);
            handed.budgets(tree);           // the same run: the same trees
            // its run interceptors go around the rest of the run, which is its (a span, a policy)
            return handed.options.runInterceptors.isEmpty() ? handed.body() : handed.new RunChain(0).intercepted();
        }
        return HandedRun.run(step, session, run);
    }

    /** The run's session. */
    Session session() {
        return session;
    }

    // --- RunContext ---

    @Override
    public String agentName() {
        return options.name;
    }

    @Override
    public Optional<String> sessionName() {
        return session.name();
    }

    @Override
    public Optional<ParentCall> parentCall() {
        return Optional.ofNullable(parentCall);
    }

    @Override
    public String task() {
        return task;
    }

    @Override
    public int iteration() {
        return state.iteration();
    }

    @Override
    public boolean isCancelled() {
        return run.isCancelled();
    }

    @Override
    public ConcurrentMap<String, Object> attributes() {
        ConcurrentMap<String, Object> made = attributes;
        if (made == null) {
            synchronized (this) {
                made = attributes;
                if (made == null) {
                    made = new ConcurrentHashMap<>();
                    attributes = made;
                }
            }
        }
        return made;
    }

    // --- the steps ---

    /**
     * Streams the model's answer (the retries and model interceptors around each attempt) and
     * reads it; a failed call or a cancelled run ends the run.
     */
    private MachineInput callModel(MachineStep.CallModel call) {
        MachineInput answer;
        try {
            answer = ModelCall.stream(options.modelCallInterceptors.isEmpty() ? modelProvider() : wholeCalls(),
                    call.request(), run, () -> machine.reader(call, run.emitter()),
                    budgets.isEmpty() ? null : tokens -> Budget.used(budgets, tokens));
        } catch (ProviderException e) {
            return e.kind() == ProviderException.Kind.CANCELLED || run.isCancelled() ? MachineInput.cancelled()
                    : MachineInput.modelFailed(e);
        }
        return run.isCancelled() ? MachineInput.cancelled() : answer;
    }

    /** Runs an answer's calls as every driver does ({@link ToolStep}), where a cancel interrupts them. */
    private MachineInput runTools(MachineStep.RunTools step) {
        try {
            return toolStep.run(step, machine.toolChain(step.tools), this, session, run.emitter());
        } finally {
            flushFromTools();       // the sub-agents' events before their calls' results
        }
    }

    /**
     * Which calls need approval: the agent's policy, except for the run's external tools, whose
     * calls are their caller's to carry out (and to ask about).
     */
    private Predicate<ToolCall> approvals() {
        if (options.approvals == null || external.isEmpty()) {
            return options.approvals;
        }
        return call -> !(call.serverName().equals(ToolCall.LOCAL_SERVER)
                && externalNames.contains(call.toolName())) && options.approvals.test(call);
    }

    /** The interceptors around each whole model call, then the retries: made for the run's first model call. */
    private Provider wholeCalls() {
        if (wholeCalls == null) {
            RetryingProvider retrying = modelProvider();
            wholeCalls = new Provider() {
                @Override
                public String name() {
                    return retrying.name();
                }

                @Override
                public java.util.Optional<java.net.URI> apiEndpoint() {
                    return retrying.apiEndpoint();
                }

                @Override
                public ChatStream stream(ChatRequest request) throws ProviderException {
                    RetryingProvider attempts = modelProvider();     // each call counts its attempts afresh
                    return new ModelChain(options.modelCallInterceptors, 0, Loop.this, request, 0, attempts,
                            options.streamOptions).proceed(request);
                }

                @Override
                public void close() {
                    // the agent's provider is the caller's to close
                }
            };
        }
        return wholeCalls;
    }

    /** The agent's provider, or, with model interceptors, the same retries around them. */
    private RetryingProvider modelProvider() {
        attempts = 0;
        if (options.modelInterceptors.isEmpty()) {
            return options.provider;
        }
        if (intercepted == null) {
            Provider real = options.provider.delegate();
            intercepted = options.provider.withDelegate(new Provider() {
                @Override
                public String name() {
                    return real.name();
                }

                @Override
                public ChatStream stream(ChatRequest request) throws ProviderException {
                    attempts++;
                    return new ModelChain(options.modelInterceptors, 0, Loop.this, request, attempts, real,
                            options.streamOptions)
                            .proceed(request);
                }

                @Override
                public void close() {
                    // the agent's provider is the caller's to close
                }
            });
        }
        return intercepted;
    }

    /** The loop's own end and result when run interceptors are around it: an unchanged result ends the run so. */
    private LoopEvent.LoopEnd loopEnd;
    private AgentResult loopResult;

    /** The run interceptors, OkHttp-style: each chain holds the position of the next one. */
    private final class RunChain implements RunInterceptor.Chain {
        private final int index;
        private boolean proceeded;

        RunChain(int index) {
            this.index = index;
        }

        LoopEvent.LoopEnd intercepted() {
            AgentResult result;
            try {
                result = proceed();
            } catch (InterceptorFailure e) {
                return new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
            }
            return result == loopResult ? loopEnd : new LoopEvent.LoopEnd(result.reason(), result.result());
        }

        @Override
        public RunContext run() {
            return Loop.this;
        }

        @Override
        public AgentResult proceed() {
            if (proceeded) {
                throw new IllegalStateException("proceed() was called already: a run goes through the loop once");
            }
            proceeded = true;
            if (index == options.runInterceptors.size()) {
                loopEnd = body();
                loopResult = new AgentResult(loopEnd.reason(), loopEnd.result(),
                        loopEnd.reason() == LoopEndReason.INTERRUPTED ? run.waiting() : List.of());
                return loopResult;
            }
            RunInterceptor interceptor = options.runInterceptors.get(index);
            AgentResult result;
            try {
                result = interceptor.intercept(new RunChain(index + 1));
            } catch (RuntimeException e) {
                throw InterceptorFailure.of("run interceptor", interceptor, e);
            }
            if (result == null) {
                throw InterceptorFailure.returnedNull("run interceptor", interceptor);
            }
            return result;
        }
    }
}
