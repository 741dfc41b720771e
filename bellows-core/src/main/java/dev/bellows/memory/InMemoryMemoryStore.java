package dev.bellows.memory;

import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A {@link MemoryStore} in a list on the heap; thread-safe. Its turns are gone when the JVM exits. */
public final class InMemoryMemoryStore implements MemoryStore {

    private final Object lock = new Object();
    /** Immutable turns, oldest first; guarded by {@link #lock}. */
    private final List<List<Message>> turns = new ArrayList<>();

    public InMemoryMemoryStore() {
    }

    @Override
    public void append(List<Message> turn) {
        List<Message> copy = List.copyOf(Objects.requireNonNull(turn, "turn"));
        synchronized (lock) {
            turns.add(copy);
        }
    }

    @Override
    public List<List<Message>> turns() {
        synchronized (lock) {
            return List.copyOf(turns);
        }
    }

    @Override
    public void clear() {
        synchronized (lock) {
            turns.clear();
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "InMemoryMemoryStore[" + turns.size() + " turns]";
        }
    }
}
