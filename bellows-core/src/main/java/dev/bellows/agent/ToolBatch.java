package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.Suspension.Entry;
import dev.bellows.agent.Suspension.State;
import dev.bellows.tool.PreparedCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolChain;
import dev.bellows.tool.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The calls of one answer the long way: each with its id, approvals first, then through the
 * tool interceptors. The rule: the calls run in call order; from the first call that waits (for
 * a decision, or deferred by an interceptor) on, none runs, each either waiting too or held
 * until the ones before it are decided. A resume takes the same batch where it stopped, with
 * the decisions, and keeps a {@link ResumeLog} of what it does.
 */
final class ToolBatch {

    /** What the model reads about a call that started in a process that died before it ended. */
    static final String UNKNOWN_OUTCOME = "the outcome of this call is unknown: Bellows stopped while it ran, before its"
            + " result was stored, so it may or may not have had its effect; it was not run again. Check before"
            + " calling it again";

    private final RunContext context;
    private final List<ToolInterceptor> interceptors;
    private final ToolChain chain;
    private final BooleanSupplier cancelled;
    private final List<Entry> entries;
    /** Indices of the calls that got their outcome in this batch, in call order. */
    private final List<Integer> done = new ArrayList<>();
    private boolean suspended;

    ToolBatch(RunContext context, List<ToolInterceptor> interceptors, ToolChain chain, BooleanSupplier cancelled,
              List<Entry> entries) {
        this.context = context;
        this.interceptors = interceptors;
        this.chain = chain;
        this.cancelled = cancelled;
        this.entries = new ArrayList<>(entries);
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
        if (!waits && parallel && parallelSafe(prepared)) {
            runInParallel(prepared);
            return;
        }
        Map<String, Decision> decisions = Map.of();
        if (waits && handler != null) {
            decisions = new java.util.HashMap<>();
            for (Entry entry : entries) {
                if (entry.state() != State.APPROVAL) {
                    continue;
                }
                Decision decision = ask(handler, entry);
                if (cancelled.getAsBoolean()) {
                    return;                 // Ctrl-C at the question: nothing runs, the run ends cancelled
                }
                decisions.put(entry.id(), decision);
                decided.accept(decision);
            }
        }
        runInOrder(prepared, decisions, null, null);
    }

    private Decision ask(ApprovalHandler handler, Entry entry) {
        WaitingCall call = new WaitingCall(entry.id(), (ToolCall) entry.decoded(), WaitingCall.Kind.APPROVAL);
        Decision decision;
        try {
            decision = handler.decide(call, context);
        } catch (RuntimeException e) {
            if (cancelled.getAsBoolean()) {
                return Decision.deny(entry.id(), "cancelled");
            }
            throw InterceptorFailure.of("approval handler", handler, e);
        }
        if (decision == null) {
            throw InterceptorFailure.returnedNull("approval handler", handler);
        }
        if (!decision.callId().equals(entry.id()) || decision instanceof Decision.Respond) {
            throw new InterceptorFailure("approval handler " + handler.getClass().getName() + " answered call "
                    + entry.id() + " with " + decision + ": approve or deny that call", null);
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
        runInOrder(prepared, decisions, log, logSink);
    }

    private void runInOrder(List<PreparedCall> prepared, Map<String, Decision> decisions, ResumeLog log,
                            Consumer<List<ResumeLog.Entry>> logSink) {
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
            JsonNode arguments = null;
            if (entry.state() == State.APPROVAL || entry.state() == State.EXTERNAL) {
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
            ToolCallOutcome outcome;
            if (log != null && log.finished(entry.id()) != null) {
                outcome = log.finished(entry.id());         // it ran (or was deferred) in an earlier attempt
            } else if (log != null && log.started(entry.id())) {
                outcome = new ToolCallOutcome.Failed(call.call(), UNKNOWN_OUTCOME, null);
            } else if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                outcome = new ToolCallOutcome.Cancelled(call.call());  // the run ends cancelled: reported nowhere
            } else {
                if (log != null) {
                    step(log, logSink, new ResumeLog.Started(entry.id()));
                }
                outcome = ToolCallChain.run(interceptors, context, entry.id(), call, arguments, cancelled);
                if (log != null && !cutShort(outcome)) {
                    step(log, logSink, new ResumeLog.Finished(entry.id(), outcome));
                }
            }
            settle(i, outcome);
        }
        if (suspended) {
            // A decision taken now for a call that could not run yet goes with the waiting run.
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                Decision decision = decisions.get(entry.id());
                if (entry.waits() && decision != null) {
                    entries.set(i, new Entry(entry.id(), entry.decoded(), entry.state(), null, decision));
                }
            }
        }
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
        List<ToolCallOutcome> outcomes = ToolChain.runAll(calls, true, cancelled,
                (call, stop) -> ToolCallChain.run(interceptors, context, ids.get(call), call, null, stop));
        for (int k = 0; k < ready.size(); k++) {
            settle(ready.get(k), outcomes.get(k));
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

    /** A call that ran: deferred by an interceptor, it waits (carried out outside the run) and the batch stops. */
    private void settle(int i, ToolCallOutcome outcome) {
        if (outcome instanceof ToolCallOutcome.Deferred) {
            Entry entry = entries.get(i);
            entries.set(i, new Entry(entry.id(), entry.decoded(), State.EXTERNAL, null, null));
            suspended = true;
        } else {
            finish(i, outcome);
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
