package dev.bellows.sessions.postgres;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionJson;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One handle on a session of a {@link PostgresSessionStore}. Others may write the same session;
 * every read asks the database what changed since the last one (the turns after the last seen,
 * or all of them after a {@code clear}), so the cache never serves a stale conversation. The
 * turns of an open exchange, held here until committed, come after the stored ones.
 */
final class PostgresSession implements StoredSession {

    private final PostgresSessionStore store;
    private final long id;
    private final String name;

    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the turns up to {@link #lastSeq} of {@link #generation}. */
    private final List<List<Message>> turns = new ArrayList<>();
    private long generation = -1;
    private long lastSeq;
    private Plan pendingPlan;
    private boolean closed;
    /** The turns of the open exchange, not stored yet, or null when none is open. */
    private List<List<Message>> exchange;
    /** Whether the open exchange carries on the last stored one ({@link #continueExchange()}). */
    private boolean continuing;
    /** What closing also releases (an exclusive handle's lock), or null. */
    private final AutoCloseable release;

    /** A waiting run set (or, as {@link #REMOVED}, removed) in the open exchange; null for no change. */
    private String exchangeWaiting;

    /** {@link #exchangeWaiting}'s value for a waiting run removed in the open exchange. */
    private static final String REMOVED = new String("(removed)");

    PostgresSession(PostgresSessionStore store, long id, String name) {
        this(store, id, name, null);
    }

    PostgresSession(PostgresSessionStore store, long id, String name, AutoCloseable release) {
        this.store = store;
        this.id = id;
        this.name = name;
        this.release = release;
    }

    @Override
    public String name() {
        return name;
    }

    /** The session's row id. */
    long id() {
        return id;
    }

    @Override
    public void append(List<Message> turn) {
        List<Message> copy = List.copyOf(Objects.requireNonNull(turn, "turn"));
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a turn needs at least one message");
        }
        synchronized (lock) {
            ensureOpen();
            if (exchange != null) {
                exchange.add(copy);
                return;
            }
            store.appendTurns(id, name, List.of(copy), pendingPlan);
            pendingPlan = null;
        }
    }

    @Override
    public List<List<Message>> turns() {
        synchronized (lock) {
            ensureOpen();
            refresh();
            if (exchange == null || exchange.isEmpty()) {
                return List.copyOf(turns);
            }
            List<List<Message>> all = new ArrayList<>(turns.size() + exchange.size());
            all.addAll(turns);
            all.addAll(exchange);
            return List.copyOf(all);
        }
    }

    @Override
    public void clear() {
        synchronized (lock) {
            ensureOpen();
            store.clearTurns(id, name);
            refresh();
            if (exchange != null) {
                exchange.clear();
                exchangeWaiting = null;
            }
        }
    }

    @Override
    public Plan plan() {
        synchronized (lock) {
            ensureOpen();
            return pendingPlan != null ? pendingPlan : refresh().plan();
        }
    }

    @Override
    public void plan(Plan plan) {
        Objects.requireNonNull(plan, "plan");
        synchronized (lock) {
            ensureOpen();
            pendingPlan = plan;
        }
    }

    @Override
    public Map<String, String> metadata() {
        synchronized (lock) {
            ensureOpen();
            return refresh().metadata();
        }
    }

    @Override
    public void putMetadata(Map<String, String> entries) {
        Map<String, String> checked = SessionJson.checkMetadata(entries);
        synchronized (lock) {
            ensureOpen();
            store.mergeMetadata(id, name, checked);
        }
    }

    @Override
    public void beginExchange() {
        synchronized (lock) {
            ensureOpen();
            if (exchange != null) {
                throw new IllegalStateException("session \"" + name + "\" already has an exchange open");
            }
            exchange = new ArrayList<>();
            continuing = false;
        }
    }

    @Override
    public void continueExchange() {
        synchronized (lock) {
            beginExchange();
            continuing = true;
        }
    }

    @Override
    public void commitExchange() {
        synchronized (lock) {
            ensureOpen();
            if (exchange == null) {
                throw new IllegalStateException("session \"" + name + "\" has no exchange open");
            }
            List<List<Message>> held = exchange;
            String heldWaiting = exchangeWaiting;
            exchange = null;
            exchangeWaiting = null;
            if (!held.isEmpty() || heldWaiting != null) {
                // a pending plan waits for the next stored turn, as outside an exchange
                try {
                    store.commitExchange(id, name, held, continuing, held.isEmpty() ? null : pendingPlan, heldWaiting != null,
                            heldWaiting == REMOVED ? null : heldWaiting);
                } finally {
                    if (!held.isEmpty()) {
                        pendingPlan = null; // stored with the turns, or made by turns that were not stored
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (exchange != null) {
                exchange = null;        // abandoned: neither its turns nor the plan they made are stored
                exchangeWaiting = null;
                pendingPlan = null;
            }
            try {
                if (pendingPlan != null) {
                    Plan plan = pendingPlan;
                    pendingPlan = null;
                    store.writePlan(id, name, plan);
                }
            } finally {
                if (release != null) {
                    try {
                        release.close();
                    } catch (Exception e) {
                        // the lock's connection is gone: PostgreSQL released the lock with it
                    }
                }
            }
        }
    }

    @Override
    public Optional<WaitingRun> waitingRun() {
        synchronized (lock) {
            ensureOpen();
            if (exchange != null && exchangeWaiting != null) {
                return exchangeWaiting == REMOVED ? Optional.empty()
                        : Optional.of(new WaitingRun(exchangeWaiting, List.of()));
            }
            return store.readWaitingRun(id, name);
        }
    }

    @Override
    public void waitingRun(String state) {
        synchronized (lock) {
            ensureOpen();
            if (exchange != null) {
                exchangeWaiting = state == null ? REMOVED : state;
                return;
            }
            store.writeWaitingRun(id, name, state);
        }
    }

    @Override
    public void logWaitingRun(List<String> entries) {
        List<String> copy = List.copyOf(Objects.requireNonNull(entries, "entries"));
        synchronized (lock) {
            ensureOpen();
            store.appendWaitingLog(id, name, copy);
        }
    }

    /** Brings the cached turns up to date; the snapshot read. */
    private PostgresSessionStore.Snapshot refresh() {
        PostgresSessionStore.Snapshot snapshot = store.read(id, name, generation, lastSeq);
        if (snapshot.generation() != generation) {
            turns.clear();
            generation = snapshot.generation();
        }
        turns.addAll(snapshot.turns());
        lastSeq = snapshot.lastSeq();
        return snapshot;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("session \"" + name + "\" is closed");
        }
    }

    @Override
    public String toString() {
        return "PostgresSession[" + name + "]";
    }
}
