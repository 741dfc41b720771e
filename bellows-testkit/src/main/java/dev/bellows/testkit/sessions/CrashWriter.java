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

    private CrashWriter() {
    }

    /**
     * Opens the session, prints {@code ready E} (E: the exchanges it holds), then stores
     * exchange after exchange as described above, continuing from those.
     */
    public static void run(SessionStore store, String sessionName, PrintStream out) {
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
