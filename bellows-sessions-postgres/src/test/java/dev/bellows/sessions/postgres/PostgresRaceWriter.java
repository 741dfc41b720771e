package dev.bellows.sessions.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.bellows.memory.StoredSession;
import dev.bellows.provider.Message;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A writer JVM of the several-JVMs test: {@code PostgresRaceWriter JDBC_URL SESSION WRITER TURNS}.
 * Opens the session on a pool of one connection, prints {@code ready}, waits for a line on
 * standard input (so that every writer starts at once), appends its turns, prints {@code done}.
 */
final class PostgresRaceWriter {

    private PostgresRaceWriter() {
    }

    public static void main(String[] args) throws IOException {
        int writer = Integer.parseInt(args[2]);
        int turns = Integer.parseInt(args[3]);
        // a connection of its own, kept (a pool of one), as a deployed JVM would have
        try (HikariDataSource pool = TestPools.pool(args[0], 1);
             PostgresSessionStore store = PostgresSessionStore.open(pool);
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
