package dev.bellows.sessions.sqlite;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionJson;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One open session of a {@link SqliteSessionStore}. It holds the session's lock, so nobody
 * else writes it: the turns read at open plus those appended since are the whole session, and
 * reads never touch the database. The turns of an open exchange are the last ones of that list
 * until it is committed.
 */
final class SqliteSession implements StoredSession {

    private final SqliteSessionStore store;
    private final SessionLock sessionLock;
    private final long id;
    private final String name;

    private final Object lock = new Object();
    /** Immutable turns, oldest first; guarded by {@link #lock}. */
    private final List<List<Message>> turns;
    /** Guarded by {@link #lock}. */
    private Plan plan;
    /** A plan not yet stored; guarded by {@link #lock}. */
    private Plan pendingPlan;
    /** Guarded by {@link #lock}. */
    private Map<String, String> metadata;
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** The turns of the open exchange, not stored yet, or null when none is open; guarded by {@link #lock}. */
    private List<List<Message>> exchange;
    /** Whether the open exchange carries on the last stored one ({@link #continueExchange()}). */
    private boolean continuing;
    /** The stored waiting run, or null; guarded by {@link #lock}. */
    private WaitingRun waiting;
    /** A waiting run set (or, as {@link #REMOVED}, removed) in the open exchange; null for no change; guarded by {@link #lock}. */
    private String exchangeWaiting;

    /** {@link #exchangeWaiting}'s value for a waiting run removed in the open exchange. */
    private static final String REMOVED = new String("(removed)");

    SqliteSession(SqliteSessionStore store, SessionLock sessionLock, long id, String name,
                  List<List<Message>> turns, Plan plan, Map<String, String> metadata, WaitingRun waiting) {
        this.store = store;
        this.sessionLock = sessionLock;
        this.id = id;
        this.name = name;
        this.turns = new ArrayList<>(turns);
        this.plan = plan;
        this.metadata = metadata;
        this.waiting = waiting;
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
            } else {
                store.appendTurns(id, name, List.of(copy), pendingPlan);
                pendingPlan = null;
            }
            turns.add(copy);
        }
    }

    @Override
    public List<List<Message>> turns() {
        synchronized (lock) {
            ensureOpen();
            return List.copyOf(turns);
        }
    }

    @Override
    public void clear() {
        synchronized (lock) {
            ensureOpen();
            store.clearTurns(id, name);
            turns.clear();
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
            return plan;
        }
    }

    @Override
    public void plan(Plan plan) {
        Objects.requireNonNull(plan, "plan");
        synchronized (lock) {
            ensureOpen();
            this.plan = plan;
            this.pendingPlan = plan;
        }
    }

    @Override
    public Map<String, String> metadata() {
        synchronized (lock) {
            ensureOpen();
            return metadata;
        }
    }

    @Override
    public void putMetadata(Map<String, String> entries) {
        Map<String, String> checked = SessionJson.checkMetadata(entries);
        synchronized (lock) {
            ensureOpen();
            Map<String, String> merged = new HashMap<>(metadata);
            merged.putAll(checked);
            store.writeMetadata(id, name, merged);
            metadata = Map.copyOf(merged);
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
            try {
                store.commitExchange(id, name, held, continuing, held.isEmpty() ? null : pendingPlan, heldWaiting != null,
                        heldWaiting == REMOVED ? null : heldWaiting);
                if (!held.isEmpty()) {
                    pendingPlan = null;
                }
                if (heldWaiting != null) {
                    waiting = heldWaiting == REMOVED ? null : new WaitingRun(heldWaiting, List.of());
                }
            } catch (RuntimeException e) {
                turns.subList(turns.size() - held.size(), turns.size()).clear();   // they are not stored
                pendingPlan = null;     // nor the plan they made: a stored plan never runs ahead of its turns
                throw e;
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
            try {
                if (exchange != null) {
                    exchange = null;    // abandoned: neither its turns nor the plan they made are stored
                    exchangeWaiting = null;
                    pendingPlan = null;
                }
                if (pendingPlan != null) {
                    store.writePlan(id, name, pendingPlan);
                    pendingPlan = null;
                }
            } finally {
                sessionLock.close();
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
            return Optional.ofNullable(waiting);
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
            if (waiting == null) {
                throw new IllegalStateException("session \"" + name + "\" has no waiting run stored to log to");
            }
            if (copy.isEmpty()) {
                return;
            }
            store.appendWaitingLog(id, name, waiting.log().size(), copy);
            List<String> log = new ArrayList<>(waiting.log());
            log.addAll(copy);
            waiting = new WaitingRun(waiting.state(), log);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("session \"" + name + "\" is closed");
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "SqliteSession[" + name + ", " + turns.size() + " turns]";
        }
    }
}
