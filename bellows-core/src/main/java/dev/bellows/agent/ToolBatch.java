package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.Suspension.Entry;
import dev.bellows.agent.Suspension.State;
import dev.bellows.tool.chain.internal.PreparedCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The calls of one answer the long way: each with its id, through one chain of tool
 * interceptors, approvals' ({@link ApprovalGate}) outermost when a call waits for approval. The
 * rule: the calls run in call order; from the first call that waits (for a decision, or deferred
 * by an interceptor) on, none runs, each either waiting too or held until the ones before it are
 * decided. What an interceptor cannot know, the batch does before any call runs: which calls of
 * the answer wait for approval (so that they all wait together), and the approval handler's
 * decisions on them, asked in call order. A resume takes the same batch where it stopped, with
 * the decisions, and keeps a {@link ResumeLog} of what it does.
 */
final class ToolBatch {

    /** What the model reads about a call that started in a process that died before it ended. */
    static final String UNKNOWN_OUTCOME = "the outcome of this call is unknown: Bellows stopped while it ran, before its"
            + " result was stored, so it may or may not have had its effect; it was not run again. Check before"
            + " calling it again";

    private final RunContext context;
    private final List<ToolInterceptor> interceptors;
    private final Calls chain;
    private final BooleanSupplier cancelled;
    private final List<Entry> entries;
    /** The chain's interceptors: {@link #interceptors}, or the approvals' gate before them when a call waits for approval. */
    private List<ToolInterceptor> chained;
    /** The approvals' gate, or null when no call of the batch waits for approval. */
    private ApprovalGate gate;
    /** The decisions of the batch's waiting calls, by id: the handler's, or a resume's. */
    private Map<String, Decision> decisions = Map.of();
    /** Indices of the calls that got their outcome in this batch, in call order. */
    private final List<Integer> done = new ArrayList<>();
    private boolean suspended;
    /** A resume that gives the waiting run up: the suspended calls' tools are told ({@link ResumableTool#giveUp}). */
    private boolean givingUp;

    ToolBatch(RunContext context, List<ToolInterceptor> interceptors, Calls chain, BooleanSupplier cancelled,
              List<Entry> entries) {
        this.context = context;
        this.interceptors = interceptors;
        this.chained = interceptors;
        this.chain = chain;
        this.cancelled = cancelled;
        this.entries = new ArrayList<>(entries);
    }

    /** This batch as one that gives the waiting run up (nothing runs; suspended calls' tools let go). */
    ToolBatch givingUp(boolean givingUp) {
        this.givingUp = givingUp;
        return this;
    }

    /**
     * A new answer's calls: those that can run and {@code needsApproval} says so wait for
     * approval. Calls run in parallel when {@code parallel} allows it, no call waits, and every
     * tool is parallel-safe. With a {@code handler}, the calls that need approval are decided by
     * it, each in call order, before any call from the first of them on runs, and each decision
     * is told to {@code decided} (an {@code approval} event); without one, they wait.
     */
    void runFresh(Predicate<ToolCall> needsApproval, ApprovalHandler handler, boolean parallel,
                  Consumer<Decision> decided) {
        List<PreparedCall> prepared = new ArrayList<>(entries.size());
        boolean waits = false;
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            PreparedCall call = chain.prepare(entry.decoded());
            prepared.add(call);
            if (call.failure().isPresent()) {
                finish(i, call.failure().get());
            } else if (needsApproval != null && needsApproval.test(call.call())) {
                entries.set(i, new Entry(entry.id(), call.call(), State.APPROVAL, null, null));
                waits = true;
            } else {
                entries.set(i, new Entry(entry.id(), call.call(), State.HELD, null, null));
            }
        }
        decisions = new java.util.HashMap<>();
        if (!waits && parallel && parallelSafe(prepared)) {
            runInParallel(prepared);
            answerNested(handler, prepared, decided);
            return;
        }
        if (waits) {
            openGate();
        }
        if (waits && handler != null) {
            for (Entry entry : entries) {
                if (entry.state() != State.APPROVAL) {
                    continue;
                }
                Decision decision = ask(handler, new WaitingCall(entry.id(), (ToolCall) entry.decoded(),
                        WaitingCall.Kind.APPROVAL));
                if (cancelled.getAsBoolean()) {
                    return;                 // Ctrl-C at the question: nothing runs, the run ends cancelled
                }
                decisions.put(entry.id(), decision);
                decided.accept(decision);
            }
        }
        runInOrder(prepared, null, null);
        answerNested(handler, prepared, decided);
    }

    /** Puts the approvals' gate outermost in the calls' chain: made once a call of the batch waits for approval. */
    private void openGate() {
        gate = new ApprovalGate(this::waitsForApproval, this::decision);
        List<ToolInterceptor> all = new ArrayList<>(interceptors.size() + 1);
        all.add(gate);
        all.addAll(interceptors);
        chained = List.copyOf(all);
    }

    /**
     * Whether the call {@code id} waits for approval: its entry's state, kept with a waiting run,
     * so that a resume goes by what waited, not by the resuming agent's patterns.
     */
    private boolean waitsForApproval(String id) {
        for (Entry entry : entries) {
            if (entry.id().equals(id)) {
                return entry.state() == State.APPROVAL;
            }
        }
        return false;
    }

    /** The decision on the call {@code id}: one kept with the waiting run, or this batch's; null when none. */
    private Decision decision(String id) {
        for (Entry entry : entries) {
            if (entry.id().equals(id) && entry.decision() != null) {
                return entry.decision();
            }
        }
        return decisions.get(id);
    }

    /**
     * With a {@code handler}, a call whose tool suspended for approvals only (a sub-agent's call
     * that needs approval) is decided at once as any call is, and carried on in this batch; the
     * batch then goes on. Without one, or for a call that waits for something else, it waits.
     */
    private void answerNested(ApprovalHandler handler, List<PreparedCall> prepared, Consumer<Decision> decided) {
        while (suspended && handler != null) {
            Entry nested = null;
            for (Entry entry : entries) {
                if (entry.waits()) {
                    nested = entry;
                    break;
                }
            }
            if (nested == null || nested.state() != State.NESTED
                    || nested.open().stream().anyMatch(open -> open.kind() != WaitingCall.Kind.APPROVAL)) {
                return;
            }
            if (context instanceof Loop loop) {
                loop.flushFromTools();              // the sub-agent's events before the question about its call
            }
            for (Suspension.Open open : nested.open()) {
                Decision decision = ask(handler, new WaitingCall(open.id(), open.call(), WaitingCall.Kind.APPROVAL));
                if (cancelled.getAsBoolean()) {
                    return;
                }
                decisions.put(open.id(), decision);
                decided.accept(decision);
            }
            suspended = false;
            runInOrder(prepared, null, null);
        }
    }

    private Decision ask(ApprovalHandler handler, WaitingCall call) {
        Decision decision;
        try {
            decision = handler.decide(call, context);
        } catch (RuntimeException e) {
            if (cancelled.getAsBoolean()) {
                return Decision.deny(call.id(), "cancelled");
            }
            throw InterceptorFailure.of("approval handler", handler, e);
        }
        if (decision == null) {
            throw InterceptorFailure.returnedNull("approval handler", handler);
        }
        if (!decision.callId().equals(call.id()) || decision instanceof Decision.Respond) {
            throw new InterceptorFailure("approval handler " + handler.getClass().getName() + " answered call "
                    + call.id() + " with " + decision + ": approve or deny that call", null);
        }
        return decision;
    }

    /**
     * A waiting answer's calls, where they stopped, with the decisions (every waiting call's),
     * logging what runs to {@code log} (written by {@code logSink} before each step goes on).
     */
    void resume(Map<String, Decision> decisions, ResumeLog log, Consumer<List<ResumeLog.Entry>> logSink) {
        List<PreparedCall> prepared = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            prepared.add(entry.state() == State.DONE ? null : chain.prepare(entry.decoded()));
        }
        this.decisions = decisions;
        if (entries.stream().anyMatch(entry -> entry.state() == State.APPROVAL)) {
            openGate();
        }
        runInOrder(prepared, log, logSink);
    }

    private void runInOrder(List<PreparedCall> prepared, ResumeLog log, Consumer<List<ResumeLog.Entry>> logSink) {
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            if (entry.state() == State.DONE) {
                continue;
            }
            PreparedCall call = prepared.get(i);
            Decision decision = entry.decision() != null ? entry.decision() : decisions.get(entry.id());
            if (call.failure().isPresent()) {
                // A denial is what the model reads, with its reason, even when the tool went away.
                boolean denied = !suspended && (entry.state() == State.APPROVAL || entry.state() == State.EXTERNAL)
                        && decision instanceof Decision.Deny
                        && entry.decoded() instanceof ToolCall;
                finish(i, denied ? new ToolCallOutcome.Denied((ToolCall) entry.decoded(),
                        ((Decision.Deny) decision).reason()) : call.failure().get());
                continue;
            }
            if (suspended) {
                continue;                                   // waits, or is held, behind an earlier call
            }
            if (entry.state() == State.NESTED) {
                resumeNested(i, call, log, logSink);
                continue;
            }
            JsonNode arguments = null;
            if (entry.state() == State.EXTERNAL) {
                switch (decision) {
                    case null -> {
                        suspended = true;
                        continue;
                    }
                    case Decision.Deny deny -> {
                        finish(i, new ToolCallOutcome.Denied(call.call(), deny.reason()));
                        continue;
                    }
                    case Decision.Respond respond -> {
                        finish(i, call.respond(null, ToolResult.of(respond.result())));
                        continue;
                    }
                    case Decision.Approve approve -> arguments = approve.arguments();
                }
            }
            // A denial runs nothing (the gate gives it): nothing is logged for it, its decision is
            // logged already, and it is the model's to read even when the run is given up.
            boolean denial = entry.state() == State.APPROVAL && decision instanceof Decision.Deny;
            boolean logs = log != null && !denial;
            ToolCallOutcome outcome;
            if (log != null && log.finished(entry.id()) != null) {
                outcome = log.finished(entry.id());         // it ran (or was deferred) in an earlier attempt
            } else if (log != null && log.started(entry.id())) {
                outcome = new ToolCallOutcome.Failed(call.call(), UNKNOWN_OUTCOME, null);
            } else if (!denial && (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted())) {
                outcome = new ToolCallOutcome.Cancelled(call.call());  // the run ends cancelled: reported nowhere
            } else {
                if (logs) {
                    step(log, logSink, new ResumeLog.Started(entry.id()));
                }
                outcome = ToolCallChain.run(chained, context, entry.id(), call, arguments, cancelled);
                if (logs && !cutShort(outcome)) {
                    step(log, logSink, new ResumeLog.Finished(entry.id(), outcome));
                }
            }
            settle(i, call, outcome, decision instanceof Decision.Approve approve ? approve.arguments() : null);
        }
        if (suspended) {
            // A decision taken now for a call that could not run yet goes with the waiting run.
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                if (entry.state() == State.NESTED) {
                    Map<String, Decision> held = new java.util.LinkedHashMap<>(entry.nested().held());
                    for (WaitingCall own : entry.nested().waiting()) {
                        Decision decision = decisions.get(entry.id() + Suspension.NESTING + own.id());
                        if (decision != null) {
                            held.putIfAbsent(own.id(), decision);
                        }
                    }
                    entries.set(i, new Entry(entry.id(), entry.decoded(), State.NESTED, null, null,
                            new Suspension.Nested(entry.nested().state(), entry.nested().waiting(), held)));
                    continue;
                }
                Decision decision = decisions.get(entry.id());
                if (entry.waits() && decision != null) {
                    entries.set(i, new Entry(entry.id(), entry.decoded(), entry.state(), null, decision));
                }
            }
        }
    }

    /**
     * Carries on a call its tool suspended, once every one of the tool's waiting calls has a
     * decision: through the interceptors to {@link ResumableTool#resume}, with what an earlier
     * attempt cut short noted. Its outcome is logged as an approved call's is; a call that
     * waits again is not (its new suspension is stored with the run instead), and neither is
     * its start: a resume cut short is carried on again from its notes, which is how its tool
     * keeps exactly once.
     */
    private void resumeNested(int i, PreparedCall call, ResumeLog log, Consumer<List<ResumeLog.Entry>> logSink) {
        Entry entry = entries.get(i);
        Suspension.Nested nested = entry.nested();
        List<Decision> own = new ArrayList<>();
        for (WaitingCall waiting : nested.waiting()) {
            Decision decision = nested.decision(entry.id(), waiting.id(), decisions::get);
            if (decision == null) {
                suspended = true;
                return;
            }
            own.add(retarget(decision, waiting.id()));
        }
        ToolCallOutcome outcome;
        if (log != null && log.finished(entry.id()) != null) {
            outcome = log.finished(entry.id());
        } else if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
            if (givingUp && call.tool() instanceof ResumableTool resumable) {
                giveUp(entry.id(), call, resumable, new NestedResumption(entry.id(), nested.state(), own,
                        log == null ? List.of() : log.notes(entry.id()), log, logSink));
            }
            outcome = new ToolCallOutcome.Cancelled(call.call());
        } else {
            NestedResumption resumption = new NestedResumption(entry.id(), nested.state(), own,
                    log == null ? List.of() : log.notes(entry.id()), log, logSink);
            outcome = ToolCallChain.resume(chained, context, entry.id(), call, resumption, cancelled);
            if (log != null && !cutShort(outcome) && suspension(call, outcome) == null) {
                step(log, logSink, new ResumeLog.Finished(entry.id(), outcome));
            }
        }
        settle(i, call, outcome);
    }

    /** Tells a suspended call's tool that its run was given up, in the call's scope; what it throws is ignored. */
    private void giveUp(String id, PreparedCall call, ResumableTool tool, Resumption resumption) {
        ToolCall made = call.call();
        try {
            CallScope.within(id, context, () -> {
                tool.giveUp(new ToolContext(made.serverName(), made.toolName(), () -> true), made.arguments(), resumption);
                return null;
            });
        } catch (RuntimeException e) {
            System.getLogger(ToolBatch.class.getName()).log(System.Logger.Level.DEBUG,
                    "tool " + made.toolName() + " failed to give up its suspended call " + id, e);
        }
    }

    /** {@code decision} as an answer to the tool's own call {@code ownId}. */
    static Decision retarget(Decision decision, String ownId) {
        return switch (decision) {
            case Decision.Approve approve -> new Decision.Approve(ownId, approve.arguments());
            case Decision.Deny deny -> new Decision.Deny(ownId, deny.reason());
            case Decision.Respond respond -> new Decision.Respond(ownId, respond.result());
        };
    }

    /** A resumed call's {@link Resumption}: its notes go to the resume's log before the tool goes on. */
    private static final class NestedResumption implements Resumption {
        private final String id;
        private final tools.jackson.databind.JsonNode state;
        private final List<Decision> decisions;
        private final List<tools.jackson.databind.JsonNode> notes;
        private final ResumeLog log;
        private final Consumer<List<ResumeLog.Entry>> sink;

        NestedResumption(String id, tools.jackson.databind.JsonNode state, List<Decision> decisions,
                         List<tools.jackson.databind.JsonNode> notes, ResumeLog log,
                         Consumer<List<ResumeLog.Entry>> sink) {
            this.id = id;
            this.state = dev.bellows.json.internal.FrozenJson.freeze(state);
            this.decisions = List.copyOf(decisions);
            this.notes = notes.stream().map(dev.bellows.json.internal.FrozenJson::freeze).toList();
            this.log = log;
            this.sink = sink;
        }

        @Override
        public tools.jackson.databind.JsonNode state() {
            return state;
        }

        @Override
        public List<Decision> decisions() {
            return decisions;
        }

        @Override
        public List<tools.jackson.databind.JsonNode> notes() {
            return notes;
        }

        @Override
        public void note(tools.jackson.databind.JsonNode note) {
            if (log != null) {
                step(log, sink, new ResumeLog.Noted(id, note.deepCopy()));
            }
        }
    }

    /** The suspension of a resumable tool's call, or null when the outcome is not one. */
    private static ToolSuspended suspension(PreparedCall call, ToolCallOutcome outcome) {
        return outcome instanceof ToolCallOutcome.Failed failed && failed.cause() instanceof ToolSuspended suspended
                && call.tool() instanceof ResumableTool ? suspended : null;
    }

    /**
     * Whether the run was cancelled while the call ran and the call failed with it: its failure
     * says only that it was stopped, not whether it had its effect, so it is left started (its
     * outcome unknown, which is what a later resume tells the model) rather than logged.
     */
    private boolean cutShort(ToolCallOutcome outcome) {
        return (outcome instanceof ToolCallOutcome.Failed || outcome instanceof ToolCallOutcome.Cancelled)
                && (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted());
    }

    private static void step(ResumeLog log, Consumer<List<ResumeLog.Entry>> sink, ResumeLog.Entry entry) {
        sink.accept(List.of(entry));    // stored first: a crash after it never runs the call again
        log.add(entry);
    }

    private void runInParallel(List<PreparedCall> prepared) {
        List<Integer> ready = new ArrayList<>();
        List<PreparedCall> calls = new ArrayList<>();
        for (int i = 0; i < prepared.size(); i++) {
            if (entries.get(i).state() != State.DONE) {
                ready.add(i);
                calls.add(prepared.get(i));
            }
        }
        java.util.IdentityHashMap<PreparedCall, String> ids = new java.util.IdentityHashMap<>();
        for (int k = 0; k < ready.size(); k++) {
            ids.put(calls.get(k), entries.get(ready.get(k)).id());
        }
        List<ToolCallOutcome> outcomes = Calls.runAll(calls, true, cancelled,
                (call, stop) -> ToolCallChain.run(interceptors, context, ids.get(call), call, null, stop));
        for (int k = 0; k < ready.size(); k++) {
            settle(ready.get(k), calls.get(k), outcomes.get(k));
        }
    }

    private static boolean parallelSafe(List<PreparedCall> prepared) {
        int tools = 0;
        for (PreparedCall call : prepared) {
            if (call.failure().isEmpty()) {
                if (!call.tool().parallelSafe()) {
                    return false;
                }
                tools++;
            }
        }
        return tools > 1;
    }

    /**
     * A call that ran: deferred by an interceptor, it waits (carried out outside the run); its
     * tool suspended it, it waits for the tool's calls; either way the batch stops.
     */
    private void settle(int i, PreparedCall call, ToolCallOutcome outcome) {
        settle(i, call, outcome, null);
    }

    /**
     * As {@link #settle(int, PreparedCall, ToolCallOutcome)}, for a call approved with
     * {@code approved} arguments (null: its own): a suspended one keeps them, so that its tool
     * is resumed with the arguments it was called with, not the model's (the approvals' gate lets
     * a suspended call pass untouched, so they are not applied again on resume). The tool's
     * interceptors' own edits are not kept: they run again, on the approved arguments, at resume.
     */
    private void settle(int i, PreparedCall call, ToolCallOutcome outcome, JsonNode approved) {
        ToolSuspended suspension = suspension(call, outcome);
        if (outcome instanceof ToolCallOutcome.Deferred) {
            // the gate's: it waits for approval; any other interceptor's: for its result from outside
            Entry entry = entries.get(i);
            entries.set(i, new Entry(entry.id(), entry.decoded(),
                    gate != null && gate.deferred(entry.id()) ? State.APPROVAL : State.EXTERNAL, null, null));
            suspended = true;
        } else if (suspension != null) {
            Entry entry = entries.get(i);
            entries.set(i, new Entry(entry.id(), approved == null ? entry.decoded() : approvedCall(call, approved),
                    State.NESTED, null, null, new Suspension.Nested(suspension.state(), suspension.waiting(), Map.of())));
            suspended = true;
        } else {
            finish(i, outcome);
        }
    }

    /** The call with the arguments it was approved with, checked as the gate checked them before it ran. */
    private static ToolCall approvedCall(PreparedCall call, JsonNode approved) {
        try {
            return new ToolCall(call.call().serverName(), call.call().toolName(), call.check(approved));
        } catch (dev.bellows.tool.InvalidArgumentsException e) {
            throw new IllegalStateException("approved arguments that ran no longer fit the tool's schema", e);
        }
    }

    private void finish(int i, ToolCallOutcome outcome) {
        Entry entry = entries.get(i);
        entries.set(i, new Entry(entry.id(), entry.decoded(), State.DONE, outcome, null));
        done.add(i);
    }

    /** Whether a call waits: the run stops here. */
    boolean suspended() {
        return suspended;
    }

    /** Every call, as it stands now. */
    List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** The calls that got their outcome in this batch, in call order. */
    List<ToolCallOutcome> newOutcomes() {
        List<Integer> order = new ArrayList<>(done);
        order.sort(null);
        return order.stream().map(i -> entries.get(i).outcome()).toList();
    }

    /** The ids of {@link #newOutcomes()}' calls, in the same order. */
    List<String> newIds() {
        List<Integer> order = new ArrayList<>(done);
        order.sort(null);
        return order.stream().map(i -> entries.get(i).id()).toList();
    }

    /** Every call's outcome, in call order; for a batch that did not stop. */
    List<ToolCallOutcome> outcomes() {
        return entries.stream().map(Entry::outcome).toList();
    }
}
