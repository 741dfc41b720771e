package dev.bellows.agent;

import dev.bellows.tool.ToolCallOutcome;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Approvals as a tool interceptor: the outermost one of a batch's chain, before the run's
 * external tools' and the agent's own (docs/machine.md, "The seam"). It is made only for a batch
 * with a call that waits for approval; without approvals nothing is made and no call pays for it.
 *
 * <p>Per call: one that does not wait for approval passes on untouched; one that waits and has
 * no decision yet waits ({@link Chain#defer()}: the batch keeps it as waiting for approval, and
 * no call after it runs); a denied one goes no further (its outcome is the denial, which the
 * model reads, so no interceptor after this one sees it); an approved one goes on with the
 * arguments the person approved. Which calls of the batch wait, and their decisions, are the
 * batch's to know ({@link ToolBatch}): the rule that no call runs before an earlier waiting
 * one is decided needs every waiting call of the answer known before the first call runs, and
 * an interceptor sees one call at a time, only once it runs.
 *
 * <p>Not thread-safe: a batch with a call that waits runs its calls in order, on one thread.
 */
final class ApprovalGate implements ToolInterceptor {

    /** Whether the batch's call of this id waits for approval now (not once it ran, or its tool suspended it). */
    private final Predicate<String> gated;
    /** A call's decision by its id, or null while it has none. */
    private final Function<String, Decision> decisions;
    /** The calls this gate made wait. */
    private final Set<String> deferred = new HashSet<>();

    ApprovalGate(Predicate<String> gated, Function<String, Decision> decisions) {
        this.gated = gated;
        this.decisions = decisions;
    }

    @Override
    public ToolCallOutcome intercept(Chain chain) {
        String id = chain.callId();
        if (!gated.test(id)) {
            return chain.proceed();
        }
        return switch (decisions.apply(id)) {
            case null -> {
                deferred.add(id);
                yield chain.defer();
            }
            case Decision.Deny deny -> new ToolCallOutcome.Denied(chain.call(), deny.reason());
            case Decision.Approve approve -> approve.arguments() == null ? chain.proceed()
                    : chain.proceed(approve.arguments());
            // refused before it gets here (AgentMachine.checkDecisions, the handler's answers)
            case Decision.Respond respond -> throw new IllegalStateException("call " + id
                    + " waits for approval: it is approved or denied, not answered");
        };
    }

    /** Whether this gate made the call {@code id} wait for its approval. */
    boolean deferred(String id) {
        return deferred.contains(id);
    }
}
