package dev.bellows.cli;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * One {@code approval_required} line per waiting call (cli.md, "Approvals"), also for a
 * sub-agent's: the sub-agent's own event (its id, known only inside it) is held back, and the
 * run's event for the same call, whose id ({@code PARENT/…/OWN}) is the one a resume decides, is
 * printed with the sub-agent's {@code agent} and {@code parent_call_id} in its place. A held
 * event that no run event claims is printed before {@code loop_end}, so that nothing is lost.
 * Not thread-safe: the run's events come one at a time.
 */
final class NestedApprovals {

    /** A sub-agent's waiting call: the call of the run that ran it, its own id, and the event. */
    private record Held(String outerCallId, String ownId, LoopEvent.SubAgentEvent event) { }

    private final List<Held> held = new ArrayList<>();

    /** Whether {@code event} is a sub-agent's {@code approval_required}, now held back. */
    boolean hold(AgentEvent event) {
        if (event instanceof LoopEvent.SubAgentEvent nested
                && nested.innermost() instanceof LoopEvent.ApprovalRequired own) {
            held.add(new Held(nested.parentCallId(), own.id(), nested));
            return true;
        }
        return false;
    }

    /**
     * The run's own {@code approval_required} as {@code json}, marked with the agent and parent
     * call of the sub-agent's call it stands for (the first held one whose outer call and own id
     * its id joins); unchanged when it is the run's own call.
     */
    ObjectNode mark(LoopEvent.ApprovalRequired waiting, ObjectNode json) {
        for (Held one : held) {
            if (waiting.id().startsWith(one.outerCallId() + "/") && waiting.id().endsWith("/" + one.ownId())) {
                held.remove(one);
                LoopEvent.SubAgentEvent deepest = one.event().deepest();
                return json.put("agent", deepest.agent()).put("parent_call_id", deepest.parentCallId());
            }
        }
        return json;
    }

    /** The held events no run event claimed, in their order; none held after. */
    List<AgentEvent> unclaimed() {
        List<AgentEvent> left = held.stream().map(one -> (AgentEvent) one.event()).toList();
        held.clear();
        return left;
    }
}
