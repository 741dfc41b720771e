package dev.bellows.agent;

import dev.bellows.event.LoopEndReason;
import java.util.Objects;

/**
 * How a run ended: the {@code loop_end} event's reason and result.
 *
 * @param reason why the loop ended; {@link LoopEndReason#successful()} when the model ended it
 * @param result the answer, question or reply when the model ended the loop; otherwise a
 *               sentence saying why it stopped (for {@code error}, the error message)
 */
public record AgentResult(LoopEndReason reason, String result) {

    public AgentResult {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(result, "result");
    }
}
