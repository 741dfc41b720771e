package dev.bellows.temporal.internal;

import dev.bellows.provider.Message;
import java.util.List;

/**
 * A durable run's conversation as it ended, turn by turn, for the session's next run to
 * continue (the {@code conversation} query; the next run records it once, as an activity's result).
 */
public record Conversation(List<List<Message>> turns) {

    public Conversation {
        turns = turns.stream().map(List::copyOf).toList();
    }
}
