package dev.bellows.event;

/**
 * Everything an agent run reports, as it happens. Switch over it with patterns.
 *
 * <p>Stream events ({@link StreamEvent}) describe one model answer as it streams; the agent
 * loop adds its own events around them.
 */
public sealed interface AgentEvent permits StreamEvent {

    /** The event's wire name, as in the contracts ({@code "thinking_start"}, ...). */
    String type();
}
