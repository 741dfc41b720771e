package dev.bellows.stream;

import dev.bellows.event.StreamEvent;

/**
 * Receives stream events as the processor emits them, on the thread that feeds chunks.
 *
 * <pre>{@code
 * StreamListener listener = event -> {
 *     switch (event) {
 *         case StreamEvent.MessageContent m -> System.out.print(m.content());
 *         case StreamEvent.ToolCallName n -> System.out.println("calling " + n.toolName() + "...");
 *         default -> { }
 *     }
 * };
 * }</pre>
 */
@FunctionalInterface
public interface StreamListener {

    void onEvent(StreamEvent event);
}
