package dev.bellows.sessions.jdbc;

import dev.bellows.memory.internal.SessionJson;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One handle on a session of a {@link JdbcSessionStore}. A locked handle ({@code sole}: its
 * dialect keeps every other handle out while it is open) reads the session once, at open, and
 * then keeps it up to date with its own writes: its reads never touch the database. A shared
 * handle asks the database on every read what changed since the last one (the turns after the
 * last seen, or all of them after a {@code clear}), so it never serves a stale conversation.
 * The turns of an open exchange, held here until committed, come after the stored ones.
 */
final class JdbcSession implements StoredSession {

    private final JdbcSessionStore store;
    private final long id;
    private final String name;
    /** Whether this is the session's only handle, its reads served from memory after {@link #load()}. */
    private final boolean sole;
    /** What closing also releases (the handle's locks), or null. */
    private final AutoCloseable release;

    private final Object lock = new Object();
    /** The stored turns up to {@link #lastSeq} of {@link #generation}, oldest first; guarded by {@link #lock}. */
    private final List<List<Message>> turns = new ArrayList<>();
    private long generation = -1;
    private long lastSeq;
    /** The stored plan, metadata and waiting run as last read (or, when sole, written); guarded by {@link #lock}. */
    private Plan plan;
    private Map<String, String> metadata;
    private WaitingRun waiting;
    /** A plan not yet stored; guarded by {@link #lock}. */
    private Plan pendingPlan;
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** The turns of the open exchange, not stored yet, or null when none is open; guarded by {@link #lock}. */
    private List<List<Message>> exchange;
    /** Whether the open exchange carries on the last stored one ({@link #continueExchange()}). */
    private boolean continuing;
    /** A waiting run set (or, as {@link #REMOVED}, removed) in the open exchange; null for no change. */
    private String exchangeWaiting;

    /** {@link #exchangeWaiting}'s value for a waiting run removed in the open exchange. */
    private static final String REMOVED = new String("(removed)");

    JdbcSession(JdbcSessionStore store, long id, String name, boolean sole, AutoCloseable release) {
        this.store = store;
        this.id = id;
        this.name = name;
        this.sole = sole;
        this.release = release;
    }

    /** Reads the whole session: a sole handle's only read. */
    void load() {
        synchronized (lock) {
            apply(store.read(id, name, generation, lastSeq, true));
        }
    }

    @Override
    public String name() {
        return name;
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
            stored(List.of(copy), pendingPlan);
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
            turns.clear();          // a shared handle reads them all again: the generation was raised
            waiting = null;
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
            if (pendingPlan != null) {
                return pendingPlan;
            }
            refresh();
            return plan;
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
            refresh();
            return metadata;
        }
    }

    @Override
    public void putMetadata(Map<String, String> entries) {
        Map<String, String> checked = SessionJson.checkMetadata(entries);
        synchronized (lock) {
            ensureOpen();
            metadata = Map.copyOf(store.mergeMetadata(id, name, checked));
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
            if (held.isEmpty() && heldWaiting == null) {
                return;                 // a pending plan waits for the next stored turn, as outside an exchange
            }
            Plan storedPlan = held.isEmpty() ? null : pendingPlan;
            try {
                store.commitExchange(id, name, held, continuing, storedPlan, heldWaiting != null,
                        heldWaiting == REMOVED ? null : heldWaiting);
            } finally {
                if (!held.isEmpty()) {
                    pendingPlan = null; // stored with the turns, or made by turns that were not stored
                }
            }
            stored(held, storedPlan);
            if (heldWaiting != null) {
                waiting = heldWaiting == REMOVED ? null : new WaitingRun(heldWaiting, List.of());
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
                    Plan unstored = pendingPlan;
                    pendingPlan = null;
                    store.writePlan(id, name, unstored);
                }
            } finally {
                // a lock whose connection or file is gone was released with it, by the database or the OS
                JdbcSessionStore.closeQuietly(release);
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
            return sole ? Optional.ofNullable(waiting) : store.readWaitingRun(id, name);
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
            waiting = state == null ? null : new WaitingRun(state, List.of());
        }
    }

    @Override
    public void logWaitingRun(List<String> entries) {
        List<String> copy = List.copyOf(Objects.requireNonNull(entries, "entries"));
        synchronized (lock) {
            ensureOpen();
            store.appendWaitingLog(id, name, copy);
            if (waiting != null) {
                List<String> log = new ArrayList<>(waiting.log());
                log.addAll(copy);
                waiting = new WaitingRun(waiting.state(), log);
            }
        }
    }

    /** Brings a shared handle's copy up to date; a sole handle's is kept so by its writes. */
    private void refresh() {
        if (!sole) {
            apply(store.read(id, name, generation, lastSeq, false));
        }
    }

    private void apply(JdbcSessionStore.Snapshot snapshot) {
        if (snapshot.generation() != generation) {
            turns.clear();
            generation = snapshot.generation();
        }
        turns.addAll(snapshot.turns());
        lastSeq = snapshot.lastSeq();
        plan = snapshot.plan();
        metadata = snapshot.metadata();
        snapshot.waiting().ifPresent(run -> waiting = run);
    }

    /** What a write stored, into a sole handle's copy (a shared handle reads it back). */
    private void stored(List<List<Message>> storedTurns, Plan storedPlan) {
        if (sole) {
            turns.addAll(storedTurns);
            lastSeq += storedTurns.size();
            if (storedPlan != null) {
                plan = storedPlan;
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("session \"" + name + "\" is closed");
        }
    }

    @Override
    public String toString() {
        return "JdbcSession[" + name + "]";
    }
}
