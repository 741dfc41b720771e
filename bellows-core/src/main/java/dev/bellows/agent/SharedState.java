package dev.bellows.agent;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.UnaryOperator;

/**
 * Typed values that the agents and tools of one run read and write: the run's agent, the
 * agents it calls as tools ({@link AgentTool}, to any depth, workflows included) and the agent a
 * handoff gives the conversation to all see the same state. A value is read and written by
 * {@link Key}, which gives its type:
 *
 * <pre>{@code
 * static final SharedState.Key<Integer> SOURCES = SharedState.Key.of("sources", Integer.class);
 *
 * // in a tool of any agent of the run
 * SharedState.current().update(SOURCES, n -> n == null ? 1 : n + 1);
 * // after the run
 * int found = session.state().get(SOURCES).orElse(0);
 * }</pre>
 *
 * <p>It belongs to the {@link Session} the run was started in ({@link Session#state()}), lives
 * in this JVM as long as the session does, and is never stored nor sent to a model. Thread-safe:
 * every method is atomic, and {@link #update} runs its function once under the key's lock (keep
 * it short, and do no I/O in it).
 */
public final class SharedState {

    /**
     * The name and type of one value.
     *
     * @param name the value's name
     * @param type its type: what {@link #get} returns
     */
    public record Key<T>(String name, Class<T> type) {
        public Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }

        public static <T> Key<T> of(String name, Class<T> type) {
            return new Key<>(name, type);
        }
    }

    private final ConcurrentMap<String, Object> values = new ConcurrentHashMap<>();

    /**
     * The state of the run whose tool call this thread runs: for a tool (or a workflow's
     * condition, a router's function) to read and write.
     *
     * @throws IllegalStateException outside a tool call of a run in this process
     */
    public static SharedState current() {
        CallScope scope = CallScope.current();
        if (scope == null || scope.state() == null) {
            throw new IllegalStateException("no run's tool call goes on on this thread: SharedState.current() is for"
                    + " the tools of a run (use Session.state() outside one)");
        }
        return scope.state();
    }

    /** The value of {@code key}, if it has one. */
    public <T> Optional<T> get(Key<T> key) {
        return Optional.ofNullable(typed(key, values.get(key.name())));
    }

    /** Sets {@code key}'s value. */
    public <T> void put(Key<T> key, T value) {
        values.put(key.name(), key.type().cast(Objects.requireNonNull(value, "value")));
    }

    /**
     * Sets {@code key}'s value to what {@code change} makes of the one it has (null when it has
     * none), atomically; a null result removes it.
     *
     * @return the new value, or null
     */
    public <T> T update(Key<T> key, UnaryOperator<T> change) {
        Objects.requireNonNull(change, "change");
        Object updated = values.compute(key.name(), (name, old) -> {
            T result = change.apply(typed(key, old));
            return result == null ? null : key.type().cast(result);
        });
        return key.type().cast(updated);
    }

    /** Removes {@code key}'s value; true when it had one. */
    public boolean remove(Key<?> key) {
        return values.remove(key.name()) != null;
    }

    private static <T> T typed(Key<T> key, Object value) {
        if (value == null) {
            return null;
        }
        if (!key.type().isInstance(value)) {
            throw new IllegalArgumentException("the shared value \"" + key.name() + "\" is a "
                    + value.getClass().getName() + ", not a " + key.type().getName());
        }
        return key.type().cast(value);
    }

    @Override
    public String toString() {
        return "SharedState" + values.keySet();
    }
}
