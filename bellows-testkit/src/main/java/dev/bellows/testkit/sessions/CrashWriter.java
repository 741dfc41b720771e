package dev.bellows.testkit.sessions;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionStore;
import dev.bellows.provider.Message;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link SessionStoreContract}'s crash test: appends turns to a session
 * for ever, printing {@code committed N} after the append of turn N returned, until it is
 * killed. Each turn is large (many messages) so that the kill most likely lands inside a
 * turn's transaction.
 */
public final class CrashWriter {

    /** Messages in each turn: enough that writing one takes a while. */
    static final int MESSAGES_PER_TURN = 40;

    private CrashWriter() {
    }

    /**
     * Opens the session, prints {@code ready}, then appends {@link #turn(int)} after turn for
     * ever, continuing from the turns the session already holds.
     */
    public static void run(SessionStore store, String sessionName, PrintStream out) {
        StoredSession session = store.open(sessionName);
        int index = session.turns().size();
        out.println("ready " + index);
        out.flush();
        while (true) {
            session.append(turn(index));
            index++;
            out.println("committed " + index);
            out.flush();
        }
    }

    /** The turn at that position (0-based): its content says where it belongs. */
    public static List<Message> turn(int index) {
        List<Message> messages = new ArrayList<>(MESSAGES_PER_TURN);
        String filler = "x".repeat(2_000);
        for (int position = 0; position < MESSAGES_PER_TURN; position++) {
            String content = "turn " + index + " message " + position + " " + filler;
            messages.add(position % 2 == 0 ? Message.user(content) : Message.assistant(content));
        }
        return List.copyOf(messages);
    }
}
