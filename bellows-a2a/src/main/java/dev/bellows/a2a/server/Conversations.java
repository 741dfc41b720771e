package dev.bellows.a2a.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.agent.Session;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.InMemoryMemoryStore;
import dev.bellows.memory.MemoryStore;
import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The conversations A2A contexts continue: one session per principal and context id, named
 * {@code a2a-} and a digest of the two (so any context id is a valid session name, and two
 * callers' contexts never meet), taken by one task at a time. In the session store when there
 * is one (opened exclusively, so two servers of one database never run a context at once), else
 * in memory.
 */
final class Conversations {

    /** A task's hold on its conversation. */
    interface Lease extends AutoCloseable {
        Session session();

        @Override
        void close();
    }

    private final SessionStore store;
    private final Function<MemoryStore, ConversationMemory> memory;
    private final Map<String, Session> inMemory = new ConcurrentHashMap<>();
    /** Each context's hold, completed when its task lets go of the conversation. */
    private final Map<String, CompletableFuture<Void>> busy = new ConcurrentHashMap<>();
    private final Duration settling;

    Conversations(SessionStore store, Function<MemoryStore, ConversationMemory> memory) {
        this(store, memory, SETTLING);
    }

    /**
     * How long a new task waits for the context's task to let go before it is refused. A task's
     * final state reaches its client a moment before the task lets go of the conversation (it
     * closes the stored session after), so a client that sends the context's next message the
     * moment it reads {@code completed} or {@code input-required} must not be refused for it.
     */
    static final Duration SETTLING = Duration.ofSeconds(5);

    Conversations(SessionStore store, Function<MemoryStore, ConversationMemory> memory, Duration settling) {
        this.store = store;
        this.memory = memory;
        this.settling = settling;
    }

    static String sessionName(String principal, String contextId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((principal + "\n" + contextId).getBytes(StandardCharsets.UTF_8));
            return "a2a-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** @throws A2aException when another task of the context runs (UnsupportedOperationError) */
    Lease take(String principal, String contextId) {
        String name = sessionName(principal, contextId);
        CompletableFuture<Void> mine = new CompletableFuture<>();
        claim(name, mine, contextId);
        try {
            if (store == null) {
                Session session = inMemory.computeIfAbsent(name, n -> new Session(memory.apply(new InMemoryMemoryStore())));
                return lease(session, null, name, mine);
            }
            StoredSession stored;
            try {
                stored = store.openExclusive(name);
            } catch (UnsupportedOperationException e) {
                stored = store.open(name);
            }
            try {
                return lease(new Session(memory.apply(stored), stored), stored, name, mine);
            } catch (RuntimeException e) {
                stored.close();
                throw e;
            }
        } catch (SessionInUseException e) {
            release(name, mine);
            throw busy(contextId);
        } catch (SessionStoreException e) {
            release(name, mine);
            throw new A2aException(A2aError.INTERNAL_ERROR, "the session store cannot be used now: " + e.getMessage());
        } catch (RuntimeException e) {
            release(name, mine);
            throw e;
        }
    }

    /** Takes the context for {@code mine}, waiting at most {@link #settling} for the task that holds it. */
    private void claim(String name, CompletableFuture<Void> mine, String contextId) {
        long deadline = System.nanoTime() + settling.toNanos();
        CompletableFuture<Void> held;
        while ((held = busy.putIfAbsent(name, mine)) != null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw busy(contextId);
            }
            try {
                held.get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw busy(contextId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw busy(contextId);
            } catch (ExecutionException e) {
                // never completed exceptionally; take another look
            }
        }
    }

    private void release(String name, CompletableFuture<Void> mine) {
        busy.remove(name, mine);
        mine.complete(null);
    }

    private Lease lease(Session session, StoredSession stored, String name, CompletableFuture<Void> mine) {
        return new Lease() {
            @Override
            public Session session() {
                return session;
            }

            @Override
            public void close() {
                try {
                    if (stored != null) {
                        stored.close();
                    }
                } finally {
                    release(name, mine);
                }
            }
        };
    }

    private static A2aException busy(String contextId) {
        return new A2aException(A2aError.UNSUPPORTED_OPERATION, "context " + contextId + " is running another task;"
                + " a context takes one task at a time: send this once it ended or asks for input");
    }
}
