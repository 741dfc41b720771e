package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Message;
import java.util.List;
import java.util.concurrent.CancellationException;

/**
 * A handoff to an agent that is not a {@link DefaultAgent} (a remote agent, say): it runs on a
 * session of its own that holds the history handed to it, its events are passed on as the
 * run's (all but its own {@code loop_start} and {@code loop_end}: the run has them), cancelling
 * the run cancels it, and its end is the run's. What it adds to its session stays there: the
 * run's session keeps the conversation as far as the handoff.
 */
final class HandedRun {

    private HandedRun() {
    }

    static LoopEvent.LoopEnd run(MachineStep.HandOff step, Session session, RunHandle run) {
        Session handed = Session.sharing(session.state(), session.tree());      // the run's state goes along
        List<List<Message>> turns = session.memory().turns();
        for (List<Message> turn : turns.subList(Math.min(session.historyFrom(), turns.size()), turns.size())) {
            handed.memory().addTurn(turn);
        }
        AgentRun other;
        try {
            other = step.handoff().agent().run(step.task(), handed);
        } catch (RuntimeException e) {
            return new LoopEvent.LoopEnd(LoopEndReason.ERROR, step.handoff().name() + " could not start: " + e.getMessage());
        }
        return run.runTools(() -> {
            try {
                for (AgentEvent event : other) {
                    if (!(event instanceof LoopEvent.LoopStart) && !(event instanceof LoopEvent.LoopEnd)) {
                        run.emit(event);
                    }
                    if (run.isCancelled()) {
                        other.cancel();
                    }
                }
            } catch (CancellationException e) {
                other.cancel();         // this thread was interrupted: the run was cancelled
                return LoopEnds.cancelled();
            }
            AgentResult result = other.await();
            return new LoopEvent.LoopEnd(result.reason(), result.result());
        });
    }
}
