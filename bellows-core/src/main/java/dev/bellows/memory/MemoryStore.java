package dev.bellows.memory;

import dev.bellows.provider.Message;
import java.util.List;

/**
 * Where a {@link ConversationMemory} keeps its turns: the SPI for persisting a conversation
 * (a file, a database). The store keeps every turn it is given, whole and in order; the
 * memory's limits only shape what is sent to the model, they never delete from the store.
 *
 * <p>Implementations must be safe to call from several threads, and must give back each turn
 * exactly as appended: same messages, same order, never split or merged.
 * {@link InMemoryMemoryStore} is the default.
 */
public interface MemoryStore {

    /** Adds a turn (non-empty, already copied and checked by the memory) after the others. */
    void append(List<Message> turn);

    /** Every turn, oldest first; a snapshot the caller may keep. */
    List<List<Message>> turns();

    /** Forgets every turn. */
    void clear();
}
