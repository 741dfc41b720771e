package dev.bellows.agent;

/**
 * A person who decides, while the run waits, on the tool calls that need approval
 * ({@link AgentBuilder#requireApproval(String)}): a dialog of an application, say. Without one,
 * a run that reaches such a call stops {@code interrupted} instead, and a resume decides
 * ({@link DefaultAgent#resume}); that survives the process, which a handler's question does not.
 *
 * <pre>{@code
 * ApprovalHandler ask = (call, run) -> dialog.confirm(call.toolName() + " " + call.arguments())
 *         ? Decision.approve(call.id())
 *         : Decision.deny(call.id(), dialog.reason());
 * DefaultAgent agent = DefaultAgent.builder()....requireApproval("files/*").approvalHandler(ask).build();
 * }</pre>
 *
 * <p>It is asked on the run's thread, once for each call of an answer that needs approval, in
 * call order, before any call from the first of them on runs: each call then runs, or is denied,
 * as decided. It returns {@link Decision#approve} (with edited arguments too: checked against
 * the tool's schema, a mismatch being an error the model reads) or {@link Decision#deny} for that
 * call. Anything else, or an exception, ends the run as an {@code error} naming the handler;
 * if the run was cancelled meanwhile (the person pressed Ctrl-C), it ends {@code cancelled} and
 * nothing runs. Each decision is reported as an {@code approval} event.
 */
@FunctionalInterface
public interface ApprovalHandler {

    /** The decision on {@code call}: approve or deny it. */
    Decision decide(WaitingCall call, RunContext run);
}
