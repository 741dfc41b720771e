package dev.bellows.testkit.sessions;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionStore;
import dev.bellows.provider.Message;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link SessionStoreContract}'s crash test. It stores exchanges as an
 * agent run does: {@link StoredSession#beginExchange()}, {@link #ITERATIONS} turns, then
 * {@link StoredSession#commitExchange()}. After the first turn of each exchange it prints
 * {@code iterated N} and waits for a line on its standard input (so the test can kill it
 * there, mid-exchange, for certain); after the commit of exchange N it prints
 * {@code committed N+1}. It goes on until it is killed, or its input ends. Each turn is large
 * (many messages) so that a kill right after the go-ahead most likely lands inside the
 * commit's transaction.
 */
public final class CrashWriter {

    /** Messages in each turn: enough that writing one takes a while. */
    static final int MESSAGES_PER_TURN = 40;

    /** Turns in each exchange, as the iterations of one run. */
    public static final int ITERATIONS = 3;

    /**
     * A session whose name starts so is written as a waiting run is resumed ({@link #runWaiting}):
     * the store's crash test starts the same child for it.
     */
    public static final String WAITING = "waiting-";

    private CrashWriter() {
    }

    /**
     * Opens the session, prints {@code ready E} (E: the exchanges it holds), then stores
     * exchange after exchange as described above, continuing from those.
     */
    public static void run(SessionStore store, String sessionName, PrintStream out) {
        if (sessionName.startsWith(WAITING)) {
            runWaiting(store, sessionName, out);
            return;
        }
        StoredSession session = store.open(sessionName);
        int exchange = session.turns().size() / ITERATIONS;
        out.println("ready " + exchange);
        out.flush();
        BufferedReader goAhead = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (true) {
            session.beginExchange();
            session.append(turn(exchange, 0));
            out.println("iterated " + exchange);
            out.flush();
            try {
                if (goAhead.readLine() == null) {
                    return;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int iteration = 1; iteration < ITERATIONS; iteration++) {
                session.append(turn(exchange, iteration));
            }
            session.commitExchange();
            exchange++;
            out.println("committed " + exchange);
            out.flush();
        }
    }

    /**
     * As a run that stops at a call waiting for approval, then as its resume: one exchange of a
     * turn with the waiting run ({@link #waitingState}), then log entries one at a time
     * ({@link #logEntry}), each in its own transaction, printing {@code logged N} after the N-th
     * is stored, until it is killed or has logged a thousand. Prints {@code waiting} once the
     * waiting run is stored (at once if a previous child stored it).
     */
    static void runWaiting(SessionStore store, String sessionName, PrintStream out) {
        StoredSession session = store.open(sessionName);
        int logged = session.waitingRun().map(run -> run.log().size()).orElse(-1);
        if (logged < 0) {
            session.beginExchange();
            session.append(turn(0, 0));
            session.waitingRun(waitingState());
            session.commitExchange();
            logged = 0;
        }
        out.println("waiting");
        out.flush();
        while (logged < 1_000) {
            session.logWaitingRun(List.of(logEntry(logged)));
            logged++;
            out.println("logged " + logged);
            out.flush();
        }
    }

    /** The waiting run {@link #runWaiting} stores: large, so that a kill may land while it is written. */
    public static String waitingState() {
        return "{\"state\": \"" + "w".repeat(50_000) + "\"}";
    }

    /** The {@code index}-th (0-based) log entry {@link #runWaiting} stores: its content says which. */
    public static String logEntry(int index) {
        return "{\"started\": \"call_" + index + "\", \"pad\": \"" + "p".repeat(4_000) + "\"}";
    }

    /** The turn of that exchange and iteration (0-based): its content says where it belongs. */
    public static List<Message> turn(int exchange, int iteration) {
        List<Message> messages = new ArrayList<>(MESSAGES_PER_TURN);
        String filler = "x".repeat(2_000);
        for (int position = 0; position < MESSAGES_PER_TURN; position++) {
            String content = "exchange " + exchange + " turn " + iteration + " message " + position + " " + filler;
            messages.add(position % 2 == 0 ? Message.user(content) : Message.assistant(content));
        }
        return List.copyOf(messages);
    }
}
