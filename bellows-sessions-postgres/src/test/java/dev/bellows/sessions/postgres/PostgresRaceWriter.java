package dev.bellows.sessions.postgres;

import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Message;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A writer JVM of the several-JVMs test: {@code PostgresRaceWriter JDBC_URL SESSION WRITER TURNS}.
 * Opens the session, prints {@code ready}, waits for a line on standard input (so that every
 * writer starts at once), appends its turns, prints {@code done}.
 */
final class PostgresRaceWriter {

    private PostgresRaceWriter() {
    }

    public static void main(String[] args) throws IOException {
        int writer = Integer.parseInt(args[2]);
        int turns = Integer.parseInt(args[3]);
        try (PostgresSessionStore store = PostgresSessionStore.open(args[0], "postgres", null);
             StoredSession session = store.open(args[1])) {
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            for (int i = 0; i < turns; i++) {
                session.append(turn(writer, i));
            }
        }
        System.out.println("done");
        System.out.flush();
    }

    static List<Message> turn(int writer, int index) {
        String id = "jvm" + writer + "-" + index;
        return List.of(Message.user(id + " question"), Message.assistant(id + " answer"), Message.user(id + " observation"));
    }
}
