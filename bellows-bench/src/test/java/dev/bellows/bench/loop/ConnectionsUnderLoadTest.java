package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.ToolMode;
import dev.bellows.http.HttpSettings;
import dev.bellows.http.SseClient;
import dev.bellows.openai.OpenAiProvider;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 20's claim, as a count and not a timing: 64 agent runs at once against the JDK's own
 * HTTP server ({@link JdkServerMock}), answering with a {@code Content-Length} or chunked, go
 * on the connections of the warm-up and open no new one, whatever the tool mode.
 *
 * <p>Each round runs one task (a tool call, then the answer: two model requests) on each of
 * {@code TASKS} virtual threads, and the server holds the round's first {@code TASKS} requests
 * until all of them came ({@link JdkServerMock#holdTogether}): every round has {@code TASKS}
 * requests in flight at once, which need {@code TASKS} connections. The warm-up round opens
 * them (exactly that many: the pool is empty); every later round must find all of them back
 * in the client's pool, so one connection dropped, closed or not yet given back would show as
 * a new connection. The bound is the client's pool, not a time: the provider's client gets a
 * watchdog that never ticks, so that no time limit of the client runs out on a loaded
 * machine (that a late end is waited for is proven in bellows-http's {@code KeepAliveTest}).
 * The time-out is a guard against hangs only.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConnectionsUnderLoadTest {

    private static final int TASKS = 64;
    private static final int ROUNDS = 3;

    @ParameterizedTest
    @CsvSource({"LENGTH, TAGS", "LENGTH, NATIVE", "CHUNKED, TAGS", "CHUNKED, NATIVE"})
    void concurrentRunsGoOnTheConnectionsOfTheWarmUp(JdkServerMock.Framing framing, ToolMode mode) throws Exception {
        try (JdkServerMock mock = JdkServerMock.start(framing, 1, 1, 0);
             BellowsAgent agent = new BellowsAgent(mock.baseUrl(), mode)) {
            withWatchdogByHand(agent.provider());
            round(mock, agent);
            assertThat(mock.connections()).as("the warm-up's connections").isEqualTo(TASKS);
            assertThat(mock.requests()).isEqualTo(2L * TASKS);
            for (int round = 1; round <= ROUNDS; round++) {
                round(mock, agent);
                assertThat(mock.connections()).as("connections after round " + round).isEqualTo(TASKS);
            }
            assertThat(mock.requests()).isEqualTo(2L * TASKS * (ROUNDS + 1));
        }
    }

    /** One task on each of {@code TASKS} virtual threads, their first requests in flight together. */
    private static void round(JdkServerMock mock, BellowsAgent agent) throws Exception {
        mock.holdTogether(TASKS);
        List<Future<String>> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int task = 0; task < TASKS; task++) {
                answers.add(threads.submit(agent::runTask));
            }
        }
        for (Future<String> answer : answers) {
            assertThat(answer.get()).isEqualTo(LeanMock.FINAL_ANSWER);
        }
    }

    /**
     * Gives the provider a client whose watchdog never ticks (the package-private constructors
     * bellows-http's own tests use): no time limit of the client runs out during the test.
     */
    private static void withWatchdogByHand(OpenAiProvider provider) throws ReflectiveOperationException {
        Class<?> watchdogClass = Class.forName("dev.bellows.http.Watchdog");
        Constructor<?> watchdog = watchdogClass.getDeclaredConstructor(long.class, int.class, boolean.class);
        watchdog.setAccessible(true);
        Constructor<SseClient> client = SseClient.class.getDeclaredConstructor(HttpSettings.class, watchdogClass);
        client.setAccessible(true);
        Field field = OpenAiProvider.class.getDeclaredField("client");
        field.setAccessible(true);
        SseClient original = (SseClient) field.get(provider);
        field.set(provider, client.newInstance(original.settings(),
                watchdog.newInstance(TimeUnit.MILLISECONDS.toNanos(50), 40, true)));
        original.close();
    }
}
