package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.util.List;
import java.util.Objects;

/**
 * One step of an {@link AgentMachine}: the state it left the run in, what it did to the world
 * ({@linkplain MachineEffect effects}, to apply in order), and what it asks the driver to do
 * next. Immutable.
 *
 * @param state   the run's new state, to give back with the next input
 * @param effects the events and session changes of the transition, in order
 * @param step    what the driver does once the effects are applied
 */
public record Transition(MachineState state, List<MachineEffect> effects, MachineStep step) {

    public Transition {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(step, "step");
        effects = List.copyOf(effects);
    }

    /** The events among the effects, in order. */
    public List<AgentEvent> events() {
        return effects.stream().filter(MachineEffect.Emit.class::isInstance)
                .map(effect -> ((MachineEffect.Emit) effect).event()).toList();
    }
}
