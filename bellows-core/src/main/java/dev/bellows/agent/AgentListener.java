package dev.bellows.agent;

import dev.bellows.event.AgentEvent;

/**
 * Told every event of every run of an agent, as it happens, on the run's thread: stream
 * events while the model's answer arrives, loop events as the loop acts. A slow listener
 * slows the run; hand work to another thread if it blocks.
 *
 * <p>A listener that throws does not stop the run: its exception is dropped, the run and
 * the other listeners carry on.
 *
 * <pre>{@code
 * AgentListener printer = event -> {
 *     switch (event) {
 *         case StreamEvent.MessageContent m -> System.out.print(m.content());
 *         case LoopEvent.LoopEnd end -> System.out.println("\n" + end.reason().wireName());
 *         default -> { }
 *     }
 * };
 * }</pre>
 */
@FunctionalInterface
public interface AgentListener {

    void onEvent(AgentEvent event);
}
