package dev.bellows.agent;

import dev.bellows.agent.Suspension.Entry;
import dev.bellows.agent.Suspension.State;
import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolChain;
import dev.bellows.tool.ToolChainResult;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * One run: the loop every agent shares (turn bookkeeping, model call, retries, endings,
 * breaker, cap, plan, memory, events), or a plain chat's single call. What differs between
 * the ways of calling tools is the {@link Protocol}: the prompts and the {@link AnswerReader}.
 *
 * <p>It is also the run's {@link RunContext} for the interceptors: nothing more is made for
 * them, and nothing at all when an agent has none.
 */
final class Loop implements Runnable, RunContext {

    private final AgentOptions options;
    private final Protocol protocol;
    private final Session session;
    private final RunHandle run;
    private final String task;
    private final Tool completion;      // the run's own task_completion for a structured answer, or null
    /** The waiting run this one carries on, or null for a new task. */
    private final Suspension resumeFrom;
    /** The resume's decisions, by call id, in the order given. */
    private final Map<String, Decision> decisions;
    /** A resume that gives the waiting run up: no call runs, nothing goes to the model. */
    private final boolean givingUp;
    /** The run's external tools (see {@link DefaultAgent#run(String, Session, List)}): their calls wait. */
    private final List<Tool> external;
    /** The names of the external tools (local ones). */
    private final java.util.Set<String> externalNames;
    /** The tool interceptors of this run: the agent's, after the one that defers external calls when there are any. */
    private final List<ToolInterceptor> toolInterceptors;
    /** The run's view with its external tools, and the shared view it was built over. */
    private ToolRegistry externalView;
    private ToolRegistry externalBase;
    private int errors;
    private String lastError = "";

    /** What the model reads after the observation of a waiting run a person gave up. */
    static final String GAVE_UP = "[stopped: the user cancelled instead of deciding on these calls]";
    private volatile int iteration;
    private volatile ConcurrentMap<String, Object> attributes;
    /** The retries around the model interceptors, made for the run's first model call when there are any. */
    private RetryingProvider intercepted;
    /** The tools {@link #madeChain} runs, and that chain (see {@link #toolChain}). */
    private ToolRegistry chainTools;
    private ToolChain madeChain;
    /** The attempts of the model request under way. */
    private int attempts;

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion) {
        this(options, protocol, session, run, task, completion, null, Map.of(), false);
    }

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion,
         Suspension resumeFrom, Map<String, Decision> decisions, boolean givingUp) {
        this(options, protocol, session, run, task, completion, resumeFrom, decisions, givingUp, List.of());
    }

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion,
         Suspension resumeFrom, Map<String, Decision> decisions, boolean givingUp, List<Tool> external) {
        this.external = external;
        this.externalNames = new java.util.HashSet<>();
        external.forEach(tool -> externalNames.add(tool.name()));
        if (external.isEmpty()) {
            this.toolInterceptors = options.toolInterceptors;
        } else {
            // Outermost, so that no interceptor of the agent's runs a call that is not the agent's to run.
            java.util.Set<Tool> externals = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            externals.addAll(external);
            List<ToolInterceptor> all = new ArrayList<>();
            all.add(chain -> chain.call().serverName().equals(dev.bellows.tool.ToolCall.LOCAL_SERVER)
                    && externals.contains(chain.tool()) ? chain.defer() : chain.proceed());
            all.addAll(options.toolInterceptors);
            this.toolInterceptors = List.copyOf(all);
        }
        this.givingUp = givingUp;
        this.completion = completion;
        this.options = options;
        this.protocol = protocol;
        this.session = session;
        this.run = run;
        this.task = task;
        this.resumeFrom = resumeFrom;
        this.decisions = decisions;
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

    /** The loop itself, however it ends. */
    private LoopEvent.LoopEnd body() {
        try {
            if (resumeFrom != null) {
                return resume();
            }
            return options.plainChat() ? chat() : loop();
        } catch (Ended ended) {
            return ended.end;
        } catch (InterceptorFailure e) {
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
        }
    }

    /** The run ended inside a step (the model call failed, or the run was cancelled). */
    private static final class Ended extends Exception {
        final LoopEvent.LoopEnd end;

        Ended(LoopEvent.LoopEnd end) {
            super(null, null, false, false);
            this.end = end;
        }
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
    public String task() {
        return task;
    }

    @Override
    public int iteration() {
        return iteration;
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

    // --- plain chat ---

    private LoopEvent.LoopEnd chat() throws Ended {
        iteration = 1;
        run.emit(new LoopEvent.IterationStart(1));
        ConversationMemory memory = session.memory();
        Message user = Message.user(task);
        Protocol.Frame frame = new Protocol.Frame(
                options.instructions.isBlank() ? null : Message.system(options.instructions), List.of(user));
        List<Message> history = History.within(memory, memory.turns().size(), user, frame.all(), List.of());
        AnswerReader.Reading answer = call(frame, history, null);
        memory.addTurn(List.of(user, answer.assistant()));
        return new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, answer.text());
    }

    // --- the agent loop ---

    private LoopEvent.LoopEnd loop() throws Ended {
        Message taskMessage = Message.user(task);
        return iterate(1, List.of(taskMessage), false, taskMessage, session.memory().turns().size());
    }

    /**
     * Which calls need approval: the agent's policy, except for the run's external tools, whose
     * calls are their caller's to carry out (and to ask about).
     */
    private java.util.function.Predicate<dev.bellows.tool.ToolCall> approvals() {
        if (options.approvals == null || external.isEmpty()) {
            return options.approvals;
        }
        return call -> !(call.serverName().equals(dev.bellows.tool.ToolCall.LOCAL_SERVER)
                && externalNames.contains(call.toolName())) && options.approvals.test(call);
    }

    /** The tools the model is offered now: the agent's view, plus the run's external tools when it has any. */
    private ToolRegistry tools() {
        ToolRegistry base = options.tools.current(completion);
        if (external.isEmpty()) {
            return base;
        }
        if (base != externalBase) {         // the first call, or the agent's registry changed
            externalView = options.tools.withExternal(completion, external);
            externalBase = base;
        }
        return externalView;
    }

    /**
     * The iterations from {@code first} on.
     *
     * @param pending         the current turn: the task, then observations and reminders
     * @param pendingInMemory whether memory holds {@code pending} already (the task joins memory with its first answer)
     * @param runStart        the number of turns memory held when the run's task came
     */
    private LoopEvent.LoopEnd iterate(int first, List<Message> pending, boolean pendingInMemory, Message taskMessage,
                                      int runStart) throws Ended {
        ConversationMemory memory = session.memory();
        for (int iteration = first; ; iteration++) {
            checkCancelled();
            this.iteration = iteration;
            run.emit(new LoopEvent.IterationStart(iteration));
            ToolRegistry tools = tools();
            Protocol.Frame frame = protocol.frame(tools, pending, session.plan());
            List<Message> history = History.within(memory, runStart, taskMessage, frame.all(),
                    pendingInMemory ? pending : List.of());
            if (pendingInMemory && history.size() >= pending.size()
                    && history.subList(history.size() - pending.size(), history.size()).equals(pending)) {
                history = history.subList(0, history.size() - pending.size());
            }
            AnswerReader.Reading answer = call(frame, history, tools);

            List<Message> turn = new ArrayList<>();
            if (!pendingInMemory) {
                turn.addAll(pending);
            }
            turn.add(answer.assistant());
            switch (answer.step()) {
                case AnswerReader.Step.NoAction none -> {
                    run.emit(new LoopEvent.NoToolCall(iteration));
                    error(none.error());
                    pending = List.of(Message.user(none.reply()));
                }
                case AnswerReader.Step.Finish done -> {
                    memory.addTurn(turn);
                    return LoopEnds.ended(new ToolEffect.EndRun(LoopEndReason.TASK_COMPLETION, done.answer()));
                }
                case AnswerReader.Step.Unreadable unreadable -> {
                    // Nothing to run: the decoder's words go back as they are.
                    for (String message : unreadable.errors()) {
                        run.emit(new LoopEvent.ToolResultError(null, null, message));
                        error(message);
                    }
                    pending = List.of(Message.user(String.join("\n\n", unreadable.errors())));
                }
                case AnswerReader.Step.Act act -> {
                    ToolChain chain = toolChain(tools);
                    ToolChainResult result;
                    if (!options.interceptsTools() && external.isEmpty()) {
                        result = run.runTools(() -> chain.execute(act.calls(), run::isCancelled));
                        checkCancelled();               // the outcomes of an interrupted batch are not reported
                        report(result.outcomes());
                    } else {
                        List<String> ids = callIds(answer.assistant(), act.calls(), runStart + iteration);
                        List<Entry> entries = new ArrayList<>(ids.size());
                        for (int i = 0; i < ids.size(); i++) {
                            entries.add(new Entry(ids.get(i), act.calls().get(i), State.HELD, null, null));
                        }
                        ToolBatch batch = new ToolBatch(this, toolInterceptors, chain, run::isCancelled, entries);
                        run.runTools(() -> {
                            batch.runFresh(approvals(), options.approvalHandler, options.parallelToolCalls,
                                    decision -> run.emit(new LoopEvent.Approval(decision.callId(),
                                            decision instanceof Decision.Approve,
                                            decision instanceof Decision.Deny deny ? deny.reason() : "")));
                            return null;
                        });
                        checkCancelled();
                        report(batch.newOutcomes());
                        if (batch.suspended()) {
                            return suspend(new Suspension(task, iteration, errors, lastError, turn, act.note(),
                                    batch.entries()));
                        }
                        result = new ToolChainResult(batch.outcomes());
                    }
                    LoopEvent.LoopEnd end = ending(turn, answer.assistant(), result);
                    if (end != null) {
                        return end;
                    }
                    pending = protocol.observation(answer.assistant(), result, act.note());
                }
            }
            turn.addAll(pending);
            memory.addTurn(turn);
            pendingInMemory = true;
            LoopEvent.LoopEnd stop = limits(iteration);
            if (stop != null) {
                return stop;
            }
        }
    }

    /**
     * After a batch whose every call has its outcome: when a call ends the run (the first in
     * call order), the turn joins memory with what the protocol keeps of the results, and the
     * end; else null, and the loop goes on.
     */
    private LoopEvent.LoopEnd ending(List<Message> turn, Message assistant, ToolChainResult result) {
        return ending(turn, assistant, result, () -> { });
    }

    /** As {@link #ending(List, Message, ToolChainResult)}, doing {@code beforeStoring} once its turn is made. */
    private LoopEvent.LoopEnd ending(List<Message> turn, Message assistant, ToolChainResult result,
                                     Runnable beforeStoring) {
        Optional<ToolEffect.EndRun> ending = result.endingRun();
        if (ending.isEmpty()) {
            return null;
        }
        turn.addAll(protocol.closing(assistant, result));
        beforeStoring.run();
        session.memory().addTurn(turn);
        return LoopEnds.ended(ending.get());
    }

    /** The circuit breaker, then the iteration cap, after an iteration; null to go on. */
    private LoopEvent.LoopEnd limits(int iteration) {
        if (errors >= options.maxConsecutiveErrors) {
            return LoopEnds.circuitBreaker(errors, lastError);
        }
        if (iteration >= options.maxIterations) {
            return LoopEnds.maxIterations(iteration);
        }
        return null;
    }

    // --- stopping and resuming ---

    /**
     * The run stops at calls that wait: the session keeps the waiting run (a stored session
     * stores it with the run's turns), one {@code approval_required} per call waiting for
     * approval, and the run ends {@code interrupted} with the waiting calls as its result.
     */
    private LoopEvent.LoopEnd suspend(Suspension waiting) {
        session.suspend(waiting);
        List<WaitingCall> calls = waiting.waiting();
        for (WaitingCall call : calls) {
            if (call.kind() == WaitingCall.Kind.APPROVAL) {
                run.emit(new LoopEvent.ApprovalRequired(call.id(), call.serverName(), call.toolName(), call.arguments()));
            }
        }
        run.waiting(calls);
        return new LoopEvent.LoopEnd(LoopEndReason.INTERRUPTED, calls.size() == 1
                ? "waiting for a decision on tool call " + waiting.waitingIds()
                : "waiting for decisions on tool calls " + waiting.waitingIds());
    }

    /**
     * Carries the waiting run on: keeps the decisions (before anything runs), runs the answer's
     * calls from where they stopped, then goes on with the loop as if they had run at once.
     */
    private LoopEvent.LoopEnd resume() throws Ended {
        Suspension waiting = resumeFrom;
        iteration = waiting.iteration();
        errors = waiting.errors();
        lastError = waiting.lastError();
        ResumeLog log = session.resumeLog();
        List<ResumeLog.Entry> decided = new ArrayList<>();
        Map<String, Decision> all = new LinkedHashMap<>();
        for (Entry entry : waiting.calls()) {
            Decision given = decisions.get(entry.id());
            Decision earlier = entry.decision() != null ? entry.decision() : log.decision(entry.id());
            if (earlier != null) {
                all.put(entry.id(), earlier);
            } else if (given != null) {
                all.put(entry.id(), given);
                decided.add(new ResumeLog.Decided(entry.id(), given));
            }
        }
        if (!decided.isEmpty()) {
            session.logResume(decided);         // every decision kept before a call runs
        }
        for (ResumeLog.Entry entry : decided) {
            Decision decision = ((ResumeLog.Decided) entry).decision();
            boolean approval = waiting.calls().stream()
                    .anyMatch(e -> e.id().equals(entry.id()) && e.state() == State.APPROVAL);
            if (approval) {
                run.emit(new LoopEvent.Approval(entry.id(), decision instanceof Decision.Approve,
                        decision instanceof Decision.Deny deny ? deny.reason() : ""));
            }
        }
        if (!givingUp) {
            checkCancelled();
        }
        ToolRegistry tools = tools();
        ToolBatch batch = new ToolBatch(this, toolInterceptors, toolChain(tools),
                givingUp ? () -> true : run::isCancelled, waiting.calls());
        run.runTools(() -> {
            batch.resume(all, log, session::logResume);
            return null;
        });
        if (!givingUp) {
            checkCancelled();
        }
        report(batch.newOutcomes());
        if (batch.suspended()) {
            return suspend(new Suspension(waiting.task(), waiting.iteration(), errors, lastError, waiting.head(),
                    waiting.note(), batch.entries()));
        }
        ConversationMemory memory = session.memory();
        int runStart = memory.turns().size() - (waiting.iteration() - 1);
        List<Message> turn = new ArrayList<>(waiting.head());
        ToolChainResult result = new ToolChainResult(batch.outcomes());
        // Nothing waits once the turn is written, not before: should writing it fail, the stored
        // waiting run keeps the calls' logged results for the next resume instead of losing them.
        LoopEvent.LoopEnd end = givingUp ? null : ending(turn, waiting.answer(), result, session::resolved);
        if (end != null) {
            return end;
        }
        List<Message> pending = protocol.observation(waiting.answer(), result, waiting.note());
        session.resolved();
        turn.addAll(pending);
        if (givingUp) {
            turn.add(Message.assistant(GAVE_UP));
            memory.addTurn(turn);
            return new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled: the waiting calls were denied");
        }
        memory.addTurn(turn);
        LoopEvent.LoopEnd stop = limits(waiting.iteration());
        if (stop != null) {
            return stop;
        }
        return iterate(waiting.iteration() + 1, pending, true, Message.user(waiting.task()), runStart);
    }

    /**
     * The ids of an answer's calls: the provider's own in native mode (when each call has one
     * of its own), else {@code call_T_K}, T the turn the answer is kept as, K the call's place.
     */
    static List<String> callIds(Message assistant, List<DecodedToolCall> calls, int turn) {
        List<NativeToolCall> natives = assistant.toolCalls();
        boolean provided = natives.size() == calls.size();
        List<String> ids = new ArrayList<>(calls.size());
        Set<String> seen = new HashSet<>();
        for (int k = 0; k < calls.size(); k++) {
            String id = provided ? natives.get(k).id() : null;
            if (id == null || id.isBlank() || !seen.add(id)) {
                id = "call_" + turn + "_" + (k + 1);
                seen.add(id);
            }
            ids.add(id);
        }
        return ids;
    }

    private void checkCancelled() throws Ended {
        if (run.isCancelled()) {
            throw new Ended(LoopEnds.cancelled());
        }
    }

    /**
     * Sends the system message (when there is one), the history, then the current turn, and
     * reads the answer; a failed call or a cancelled run ends the run.
     */
    /** The chain that runs this run's tool calls, made again only when the tools are other ones. */
    private ToolChain toolChain(ToolRegistry tools) {
        if (madeChain == null || chainTools != tools) {
            madeChain = protocol.toolChain(tools).withResultLimit(options.resultLimit);
            chainTools = tools;
        }
        return madeChain;
    }

    private AnswerReader.Reading call(Protocol.Frame frame, List<Message> history, ToolRegistry tools) throws Ended {
        List<Message> messages = new ArrayList<>(history.size() + frame.current().size() + 1);
        if (frame.system() != null) {
            messages.add(frame.system());
        }
        messages.addAll(history);
        messages.addAll(frame.current());
        // The limit is a hard cap: a turn larger than it alone is cut in its middle, never sent whole.
        ChatRequest request = ChatRequest.builder().model(options.model).messages(ContextCap.fit(messages, session.memory()))
                .tools(tools == null ? List.of() : protocol.toolSpecs(tools)).build();
        AnswerReader.Reading answer;
        try {
            answer = ModelCall.stream(modelProvider(), request, run, () -> protocol.reader(tools, run::emit));
        } catch (ProviderException e) {
            throw new Ended(LoopEnds.failed(run, e));
        }
        checkCancelled();
        return answer;
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

    private void error(String message) {
        errors++;
        lastError = message;
    }

    /** The events of a batch, in call order; each success resets the error count, each failure adds to it. */
    private void report(List<ToolCallOutcome> outcomes) {
        for (ToolCallOutcome outcome : outcomes) {
            switch (outcome) {
                case ToolCallOutcome.Succeeded s -> {
                    errors = 0;
                    String text = s.effect() instanceof ToolEffect.EndRun end ? end.result() : s.text();
                    run.emit(new LoopEvent.ToolResultEvent(s.call().serverName(), s.call().toolName(),
                            s.call().arguments(), text));
                    if (s.effect() instanceof ToolEffect.ReplacePlan replace) {
                        session.plan(replace.plan());
                        run.emit(new LoopEvent.PlanUpdate(replace.plan().steps()));
                    }
                }
                case ToolCallOutcome.Failed f -> {
                    error(f.error());
                    if (f.call() instanceof ToolCall call) {
                        run.emit(new LoopEvent.ToolResultError(call.serverName(), call.toolName(), f.error()));
                    } else {
                        run.emit(new LoopEvent.ToolResultError(null, null, f.error()));
                    }
                }
                case ToolCallOutcome.Denied d ->
                        // a person's no is not the model's error: it neither counts nor resets the count
                        run.emit(new LoopEvent.ToolResultError(d.call().serverName(), d.call().toolName(), d.text()));
                case ToolCallOutcome.Cancelled c -> {
                    // only when cancelled, which ended the run above
                }
                case ToolCallOutcome.Deferred d -> {
                    // it waits: the run stops with it
                }
            }
        }
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
