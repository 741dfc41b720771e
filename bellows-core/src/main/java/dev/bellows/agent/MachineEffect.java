package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a transition does to the world, in order: an event for the run's listeners, a turn for
 * the session's conversation, a new plan, the run's waiting state. The machine only says so;
 * the driver applies each, in the order given, before it carries out the transition's step
 * ({@link #applyTo}). Immutable values.
 */
public sealed interface MachineEffect permits MachineEffect.Emit, MachineEffect.Remember, MachineEffect.ReplacePlan,
        AgentMachine.Suspend, AgentMachine.LogResume, AgentMachine.Resolved, AgentMachine.HandOver {

    /**
     * Applies this effect: an event goes to {@code events}, the rest to {@code session} (a
     * stored session writes it).
     */
    void applyTo(Session session, Consumer<? super AgentEvent> events);

    /** An event of the run. */
    record Emit(AgentEvent event) implements MachineEffect {
        public Emit {
            Objects.requireNonNull(event, "event");
        }

        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            events.accept(event);
        }
    }

    /** A turn joins the session's conversation. */
    record Remember(List<Message> turn) implements MachineEffect {
        public Remember {
            turn = List.copyOf(turn);
        }

        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            session.memory().addTurn(turn);
        }
    }

    /** The session's plan is replaced. */
    record ReplacePlan(Plan plan) implements MachineEffect {
        public ReplacePlan {
            Objects.requireNonNull(plan, "plan");
        }

        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            session.plan(plan);
        }
    }
}
