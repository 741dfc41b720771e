package dev.bellows.agent;

import dev.bellows.tool.LoopEndReason;
import java.util.List;
import java.util.Objects;

/**
 * How a run ended: the {@code loop_end} event's reason and result, and, for a run that stopped
 * {@code interrupted}, the calls it waits on.
 *
 * @param reason  why the loop ended; {@link LoopEndReason#successful()} when the model ended it
 * @param result  the answer, question or reply when the model ended the loop; otherwise a
 *                sentence saying why it stopped (for {@code error}, the error message)
 * @param waiting for {@link LoopEndReason#INTERRUPTED}, the calls that wait for a decision, in
 *                call order (resume with one {@link Decision} each); otherwise empty
 */
public record AgentResult(LoopEndReason reason, String result, List<WaitingCall> waiting) {

    public AgentResult {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(result, "result");
        waiting = List.copyOf(Objects.requireNonNull(waiting, "waiting"));
    }

    /** A result without waiting calls. */
    public AgentResult(LoopEndReason reason, String result) {
        this(reason, result, List.of());
    }
}
