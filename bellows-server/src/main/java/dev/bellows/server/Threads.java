package dev.bellows.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.InMemoryMemoryStore;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The AG-UI threads: each a {@link Session}, taken by one run at a time. With a session store,
 * a thread is the stored session of that name, opened for the run alone
 * ({@link SessionStore#openExclusive}), so that two runs of a thread never overlap, on this
 * server or another sharing the database; the ids of the messages taken from clients are kept
 * in its metadata. A run that stops with calls waiting is kept by the session itself (the
 * store keeps a waiting run with the run's turns), so the thread is let go between runs like
 * any other and its next run, on any server of the store, carries it on. Without a store,
 * threads live in this process.
 */
abstract sealed class Threads {

    /** The metadata key of the ids of the client messages a thread has taken, a JSON array. */
    static final String MESSAGE_IDS = "agui_message_ids";

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final System.Logger LOG = System.getLogger(Threads.class.getName());

    /** A run's hold on a thread. */
    interface Lease extends AutoCloseable {
        Session session();

        /** The ids of the messages the thread has taken. */
        Set<String> knownIds();

        /** What the thread's last run left waiting, as the AG-UI side sees it, or null. */
        Pending pending();

        /**
         * Records more taken ids (once the run's turns are stored) and what the run left
         * waiting (null: nothing), in one write.
         */
        void remember(Collection<String> ids, Pending pending);

        /**
         * Told the run's events: keeps what its sub-agents did with a stored thread
         * ({@link dev.bellows.agent.internal.SubAgentTrail}), for {@code bellows sessions show}.
         */
        default dev.bellows.agent.AgentListener subAgents() {
            return event -> { };
        }

        @Override
        void close();
    }

    /** The metadata key of what a thread's waiting run left for its next run ({@link Pending}), JSON. */
    static final String PENDING = "agui_pending";

    /**
     * What a run that stopped with calls waiting leaves for the run that carries it on, kept
     * with the thread (so any server sharing the store can carry it on): the turns the
     * conversation held when the run's task came, from which the loop numbers its calls, and
     * the calls the run showed ({@code TOOL_CALL_START}) without a result, in call order,
     * whose results the next run sends first.
     *
     * @param kept the waiting run of an agent that keeps its own ({@link dev.bellows.agent.ResumableAgent}),
     *             {@link KeptRun}, or null
     */
    record Pending(int turnsAtStart, List<String> calls, KeptRun kept) {
        Pending {
            calls = List.copyOf(calls);
        }

        Pending(int turnsAtStart, List<String> calls) {
            this(turnsAtStart, calls, null);
        }

        String json() {
            var node = MAPPER.createObjectNode().put("turnsAtStart", turnsAtStart);
            calls.forEach(node.putArray("calls")::add);
            if (kept != null) {
                node.set("kept", kept.json());
            }
            return node.toString();
        }

        /** The pending calls in {@code json}, or null for none (or unreadable: the caller falls back). */
        static Pending read(String json) {
            if (json == null || json.isBlank()) {
                return null;
            }
            try {
                JsonNode node = MAPPER.readTree(json);
                List<String> calls = new java.util.ArrayList<>();
                node.path("calls").forEach(id -> calls.add(id.asString()));
                KeptRun kept = node.has("kept") ? KeptRun.read(node.get("kept")) : null;
                return new Pending(node.path("turnsAtStart").asInt(), calls, kept);
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "a thread's pending calls could not be read", e);
                return null;
            }
        }
    }

    /**
     * The waiting run of an agent that keeps no waiting run in the session itself
     * ({@link dev.bellows.agent.ResumableAgent}, a remote agent): the state its
     * {@code waitingState} gave, the calls it waits on, and what an attempt to carry it on noted
     * before it was cut short ({@link dev.bellows.agent.Resumption#notes()}). No secret: the
     * agent's state holds none.
     */
    record KeptRun(JsonNode state, List<WaitingCall> waiting, List<JsonNode> notes) {
        KeptRun {
            waiting = List.copyOf(waiting);
            notes = List.copyOf(notes);
        }

        /** The same run, with {@code note} noted too. */
        KeptRun noting(JsonNode note) {
            List<JsonNode> more = new java.util.ArrayList<>(notes);
            more.add(note);
            return new KeptRun(state, waiting, more);
        }

        JsonNode json() {
            var node = MAPPER.createObjectNode();
            node.set("state", state);
            ArrayNode calls = node.putArray("waiting");
            for (WaitingCall call : waiting) {
                calls.addObject().put("id", call.id()).put("server", call.serverName()).put("tool", call.toolName())
                        .put("kind", call.kind().name()).set("arguments", call.arguments());
            }
            notes.forEach(node.putArray("notes")::add);
            return node;
        }

        static KeptRun read(JsonNode node) {
            List<WaitingCall> waiting = new java.util.ArrayList<>();
            for (JsonNode call : node.path("waiting")) {
                waiting.add(new WaitingCall(call.path("id").asString(), new dev.bellows.tool.ToolCall(
                        call.path("server").asString(), call.path("tool").asString(), call.path("arguments")),
                        WaitingCall.Kind.valueOf(call.path("kind").asString())));
            }
            List<JsonNode> notes = new java.util.ArrayList<>();
            node.path("notes").forEach(notes::add);
            return new KeptRun(node.path("state"), waiting, notes);
        }
    }

    private final Map<String, Boolean> busy = new ConcurrentHashMap<>();

    /**
     * Takes the thread for a run.
     *
     * @throws HttpError 409 when another run has it, 503 when the store cannot be used
     */
    final Lease take(String threadId) throws HttpError {
        if (busy.putIfAbsent(threadId, Boolean.TRUE) != null) {
            throw busy(threadId);
        }
        try {
            return open(threadId, () -> busy.remove(threadId));
        } catch (HttpError | RuntimeException | Error e) {
            busy.remove(threadId);
            throw e;
        }
    }

    abstract Lease open(String threadId, Runnable release) throws HttpError;


    static HttpError busy(String threadId) {
        return HttpError.of(409, "conflict_error", "thread \"" + threadId + "\" is running another run; a thread takes"
                + " one run at a time: wait for it to end (or stop it), then send this again");
    }

    static Set<String> ids(String json) {
        Set<String> ids = new HashSet<>();
        if (json == null) {
            return ids;
        }
        try {
            for (JsonNode id : MAPPER.readTree(json)) {
                ids.add(id.asString());
            }
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "a thread's message ids could not be read; its messages are taken anew", e);
        }
        return ids;
    }

    static String idsJson(Collection<String> ids) {
        ArrayNode array = MAPPER.createArrayNode();
        ids.forEach(array::add);
        return array.toString();
    }

    /** Threads kept in a session store. */
    static final class Stored extends Threads {

        private final SessionStore store;
        private final Function<MemoryStore, ConversationMemory> memory;
        /** What the agent runs with (its model, its tool mode), recorded with each run as the CLI records it. */
        private final Map<String, String> settings;
        private volatile boolean exclusive = true;

        Stored(SessionStore store, Function<MemoryStore, ConversationMemory> memory, Map<String, String> settings) {
            this.store = store;
            this.memory = memory;
            this.settings = Map.copyOf(settings);
        }

        @Override
        Lease open(String threadId, Runnable release) throws HttpError {
            StoredSession stored;
            try {
                stored = exclusive ? store.openExclusive(threadId) : store.open(threadId);
            } catch (UnsupportedOperationException e) {
                // A store of the application's that cannot keep users apart: runs of one thread
                // are kept apart on this server only.
                LOG.log(System.Logger.Level.WARNING, () -> store.getClass().getName() + " cannot open sessions for one"
                        + " user at a time: two servers sharing it could run one thread at once");
                exclusive = false;
                return open(threadId, release);
            } catch (SessionInUseException e) {
                throw busy(threadId);
            } catch (SessionStoreException e) {
                throw HttpError.of(503, "service_unavailable", "the session store cannot be used now: " + e.getMessage());
            }
            Map<String, String> metadata = stored.metadata();
            Set<String> known = ids(metadata.get(MESSAGE_IDS));
            Pending pending = Pending.read(metadata.get(PENDING));
            Session session;
            try {
                session = new Session(memory.apply(stored), stored);
            } catch (RuntimeException e) {
                stored.close();
                throw e;
            }
            return lease(threadId, stored, session, known, pending, release);
        }

        private Lease lease(String threadId, StoredSession stored, Session session, Set<String> known, Pending pending,
                            Runnable release) {
            dev.bellows.agent.internal.SubAgentTrail trail = new dev.bellows.agent.internal.SubAgentTrail(stored);
            return new Lease() {
                @Override
                public Session session() {
                    return session;
                }

                @Override
                public dev.bellows.agent.AgentListener subAgents() {
                    return trail;
                }

                @Override
                public Set<String> knownIds() {
                    return known;
                }

                @Override
                public Pending pending() {
                    return pending;
                }

                @Override
                public void remember(Collection<String> ids, Pending next) {
                    known.addAll(ids);
                    Map<String, String> entries = new java.util.HashMap<>(settings);
                    entries.put(MESSAGE_IDS, idsJson(known));
                    entries.put(PENDING, next == null ? "" : next.json());
                    stored.putMetadata(entries);
                }

                @Override
                public void close() {
                    try {
                        stored.close();
                    } catch (RuntimeException e) {
                        // the store went away after the run: what the run stored is stored; the
                        // lock is released by the database with the connection
                        LOG.log(System.Logger.Level.WARNING, () -> "thread " + threadId + ": closing its session failed", e);
                    } finally {
                        release.run();
                    }
                }
            };
        }
    }

    /** Threads in this process only (no session store): gone when it ends. */
    static final class InMemory extends Threads {

        private static final class Kept {
            final Session session;
            final Set<String> known = ConcurrentHashMap.newKeySet();
            volatile Pending pending;

            Kept(Session session) {
                this.session = session;
            }
        }

        private final Map<String, Kept> threads = new ConcurrentHashMap<>();
        private final Function<MemoryStore, ConversationMemory> memory;

        InMemory(Function<MemoryStore, ConversationMemory> memory) {
            this.memory = memory;
        }

        @Override
        Lease open(String threadId, Runnable release) {
            Kept kept = threads.computeIfAbsent(threadId,
                    id -> new Kept(new Session(memory.apply(new InMemoryMemoryStore()))));
            return new Lease() {
                @Override
                public Session session() {
                    return kept.session;
                }

                @Override
                public Set<String> knownIds() {
                    return kept.known;
                }

                @Override
                public Pending pending() {
                    return kept.pending;
                }

                @Override
                public void remember(Collection<String> ids, Pending pending) {
                    kept.known.addAll(ids);
                    kept.pending = pending;
                }

                @Override
                public void close() {
                    release.run();
                }
            };
        }
    }
}
