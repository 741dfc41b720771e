package dev.bellows.event;

/**
 * Everything an agent run reports, as it happens. Switch over it with patterns.
 *
 * <p>Stream events ({@link StreamEvent}) describe one model answer as it streams; the agent
 * loop adds its own events ({@link LoopEvent}) around them. {@link EventJson} writes either
 * in its wire form.
 */
public sealed interface AgentEvent permits StreamEvent, LoopEvent {

    /** The event's wire name, as in the contracts ({@code "thinking_start"}, ...). */
    String type();
}
