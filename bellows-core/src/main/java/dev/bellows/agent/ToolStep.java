package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.tool.chain.ToolChainResult;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Does a {@link MachineStep.RunTools} step, the same for every driver: straight through the
 * tool chain when nothing steps in (no approvals, no tool interceptors, no calls deferred),
 * else the long way ({@link ToolBatch}: each call with its id through one chain of tool
 * interceptors, the approvals' gate outermost, a resume's log written before each call runs). The outcomes of a batch the
 * run was cancelled in are not reported: the answer is {@link MachineInput#cancelled()}.
 *
 * @param interceptors the tool interceptors, the first outermost
 * @param approvals    which calls wait for approval, or null for none
 * @param handler      who decides on them while the run waits, or null (they wait: the run stops)
 * @param parallel     whether an answer's calls may run at the same time
 * @param plain        whether nothing steps in, so the chain runs the batch as it is
 * @param around       runs the batch (the in-process driver: so that a cancel interrupts it)
 */
record ToolStep(List<ToolInterceptor> interceptors, Predicate<ToolCall> approvals, ApprovalHandler handler,
                boolean parallel, boolean plain, Around around) {

    /** Where a batch runs. */
    interface Around {
        <T> T run(Supplier<T> batch);
    }

    static final Around DIRECTLY = Supplier::get;

    MachineInput run(MachineStep.RunTools step, Calls chain, RunContext run, Session session,
                     Consumer<? super AgentEvent> emit) {
        if (step.resuming()) {
            boolean givingUp = step.givingUp;
            if (!givingUp && run.isCancelled()) {
                return MachineInput.cancelled();
            }
            ToolBatch batch = new ToolBatch(run, interceptors, chain, givingUp ? () -> true : run::isCancelled,
                    step.entries).givingUp(givingUp);
            around.run(() -> {
                batch.resume(step.decisions, step.log, session::logResume);
                return null;
            });
            if (!givingUp && run.isCancelled()) {
                return MachineInput.cancelled();
            }
            return ran(batch);
        }
        if (plain && step.entries.size() == 1 && !callsAnAgent(step)) {
            // One call, on this thread, in the run's scope (its shared state); several may run on
            // threads of their own, which only the batch gives the scope.
            Suspension.Entry only = step.entries.getFirst();
            List<DecodedToolCall> calls = List.of(only.decoded());
            ToolChainResult result = new ToolChainResult(around.run(() -> CallScope.within(only.id(), run,
                    () -> chain.execute(calls, run::isCancelled))));
            if (run.isCancelled()) {
                return MachineInput.cancelled();
            }
            return new AgentMachine.ToolsRan(result, result.outcomes(), List.of(), false, step.callIds());
        }
        ToolBatch batch = new ToolBatch(run, interceptors, chain, run::isCancelled, step.entries);
        around.run(() -> {
            batch.runFresh(approvals, handler, parallel, decision -> emit.accept(new LoopEvent.Approval(decision.callId(),
                    decision instanceof Decision.Approve, decision instanceof Decision.Deny deny ? deny.reason() : "")));
            return null;
        });
        return run.isCancelled() ? MachineInput.cancelled() : ran(batch);
    }

    /**
     * Whether a call of the step may suspend ({@link ResumableTool}, an {@link AgentTool} among
     * them): it needs its call's id ({@link CallScope}) and may wait, which only the batch
     * handles, so such a step never takes the plain path.
     */
    private static boolean callsAnAgent(MachineStep.RunTools step) {
        for (Suspension.Entry entry : step.entries) {
            if (entry.decoded() instanceof dev.bellows.tool.ToolCall call && step.tools != null
                    && step.tools.find(call.serverName(), call.toolName()).orElse(null) instanceof ResumableTool) {
                return true;
            }
        }
        return false;
    }

    private static MachineInput ran(ToolBatch batch) {
        return new AgentMachine.ToolsRan(batch.suspended() ? null : new ToolChainResult(batch.outcomes()),
                batch.newOutcomes(), batch.entries(), batch.suspended(), batch.newIds());
    }
}
