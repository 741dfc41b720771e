package dev.bellows.sessions.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.provider.Message;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the PostgreSQL store promises beyond the shared contract: several users of one session
 * at once (each with its own store, as several JVMs would have), and migrations that race.
 */
class PostgresConcurrencyTest {

    private String url;

    @BeforeEach
    void newSchema() {
        url = EmbeddedPostgres.shared().newSchema();
    }

    @AfterEach
    void closePools() {
        TestPools.closeAll();
    }

    /** A store on the URL: a connection per operation. */
    private PostgresSessionStore store() {
        return PostgresSessionStore.open(url, "postgres", null);
    }

    /** Each writer a store on a pool of one connection of its own, as another JVM would have. */
    @Test
    void writersWithTheirOwnConnectionsRacingOnOneSessionLoseAndInterleaveNothing() throws Exception {
        int writers = 8;
        int turnsEach = 25;
        try (PostgresSessionStore setup = store(); StoredSession created = setup.open("shared")) {
            created.putMetadata(Map.of(StoredSession.MODEL, "m"));
        }
        List<List<List<Message>>> seenByEach = all(writers, writer -> {
            try (PostgresSessionStore store = PostgresSessionStore.open(TestPools.pool(url, 1));
                 StoredSession session = store.open("shared")) {
                for (int i = 0; i < turnsEach; i++) {
                    session.append(turn(writer, i));
                    session.putMetadata(Map.of("writer-" + writer, Integer.toString(i)));
                }
                return null;
            }
        });
        assertThat(seenByEach).hasSize(writers);
        try (PostgresSessionStore store = store(); StoredSession session = store.open("shared")) {
            List<List<Message>> turns = session.turns();
            assertThat(turns).hasSize(writers * turnsEach);
            int[] next = new int[writers];
            for (List<Message> turn : turns) {
                String first = turn.getFirst().content();
                int writer = Integer.parseInt(first.substring(1, first.indexOf('-')));
                int index = Integer.parseInt(first.substring(first.indexOf('-') + 1, first.indexOf(' ')));
                assertThat(index).as("writer %d's turns in order", writer).isEqualTo(next[writer]++);
                assertThat(turn).isEqualTo(turn(writer, index));
            }
            Map<String, String> metadata = session.metadata();
            assertThat(metadata).containsEntry(StoredSession.MODEL, "m").hasSize(writers + 1);
            for (int writer = 0; writer < writers; writer++) {
                assertThat(metadata).containsEntry("writer-" + writer, Integer.toString(turnsEach - 1));
            }
            assertThat(store.find("shared").orElseThrow().turns()).isEqualTo(writers * turnsEach);
            assertThat(store.find("shared").orElseThrow().messages()).isEqualTo(writers * turnsEach * 2);
        }
    }

    @Test
    void severalJvmsWritingOneSessionAtOnceLoseAndInterleaveNothing() throws Exception {
        int jvms = 3;
        int turnsEach = 60;
        List<Process> writers = new ArrayList<>();
        try {
            for (int writer = 0; writer < jvms; writer++) {
                writers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        // a short-lived JVM: C1 alone and the serial collector start it with less CPU
                        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-cp", System.getProperty("java.class.path"), PostgresRaceWriter.class.getName(),
                        url, "jvms", Integer.toString(writer), Integer.toString(turnsEach))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process writer : writers) {
                BufferedReader output = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8));
                assertThat(output.readLine()).isEqualTo("ready");
                outputs.add(output);
            }
            for (Process writer : writers) {       // all go at once
                writer.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                writer.getOutputStream().flush();
            }
            for (int i = 0; i < jvms; i++) {
                assertThat(outputs.get(i).readLine()).isEqualTo("done");
                assertThat(writers.get(i).waitFor()).isZero();
            }
        } finally {
            writers.forEach(Process::destroyForcibly);
        }
        try (PostgresSessionStore store = store(); StoredSession session = store.open("jvms")) {
            List<List<Message>> turns = session.turns();
            assertThat(turns).hasSize(jvms * turnsEach);
            int[] next = new int[jvms];
            boolean interleavedWriters = false;
            int previousWriter = -1;
            for (List<Message> turn : turns) {
                String first = turn.getFirst().content();
                int writer = Integer.parseInt(first.substring(3, first.indexOf('-')));
                int index = Integer.parseInt(first.substring(first.indexOf('-') + 1, first.indexOf(' ')));
                assertThat(index).as("JVM %d's turns in order", writer).isEqualTo(next[writer]++);
                assertThat(turn).isEqualTo(PostgresRaceWriter.turn(writer, index));
                interleavedWriters |= previousWriter != -1 && previousWriter != writer && next[previousWriter] < turnsEach;
                previousWriter = writer;
            }
            // not a requirement, but the point of the test: the JVMs really wrote at the same time
            System.out.println("several JVMs: turns of different writers alternated: " + interleavedWriters);
        }
    }

    @Test
    void storesStartingTogetherMigrateOnce() throws Exception {
        all(6, index -> {
            store().close();
            return null;
        });
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*), max(version) FROM bellows_schema_version")) {
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(PostgresSchema.CURRENT);
            assertThat(rows.getInt(2)).isEqualTo(PostgresSchema.CURRENT);
        }
    }

    @Test
    void aHandleSeesAnotherHandlesClearAndASessionDeletedUnderIt() {
        try (PostgresSessionStore first = store(); PostgresSessionStore second = store()) {
            StoredSession a = first.open("gone");
            StoredSession b = second.open("gone");
            a.append(List.of(Message.user("one")));
            assertThat(b.turns()).containsExactly(List.of(Message.user("one")));
            b.clear();
            b.append(List.of(Message.user("two")));
            assertThat(a.turns()).containsExactly(List.of(Message.user("two")));
            assertThat(second.delete("gone")).isTrue();
            assertThatThrownBy(() -> a.append(List.of(Message.user("three")))).isInstanceOf(SessionStoreException.class)
                    .hasMessageContaining("\"gone\" was deleted");
            assertThatThrownBy(a::turns).isInstanceOf(SessionStoreException.class);
        }
    }

    @Test
    void aWrongUrlIsRefusedWithoutItsQuery() {
        assertThatThrownBy(() -> PostgresSessionStore.open("jdbc:mysql://x/db?password=hunter2", "u", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:mysql://x/db").hasMessageNotContaining("hunter2");
        String unreachable = url.replaceFirst(":\\d+/", ":1/");
        assertThatThrownBy(() -> PostgresSessionStore.open(unreachable, "postgres", "secret-password"))
                .isInstanceOf(SessionStoreException.class).hasMessageNotContaining("secret-password");
    }

    private static List<Message> turn(int writer, int index) {
        String id = "w" + writer + "-" + index;
        return List.of(Message.user(id + " question"), Message.assistant(id + " answer"));
    }

    /** Runs the task once per index, all threads released at once; their results, or the first failure. */
    private static <T> List<T> all(int count, IndexedCall<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                Callable<T> call = () -> {
                    start.await();
                    return task.call(index);
                };
                futures.add(pool.submit(call));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface IndexedCall<T> {
        T call(int index) throws Exception;
    }
}
