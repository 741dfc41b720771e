package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's ticking {@link Watchdog}. Where a deadline must pass, the test drives a watchdog
 * without a thread and gives each tick the time it wants: nothing depends on how fast the
 * machine is. Where the thread itself is the subject, latches say when it ended.
 */
class WatchdogTest {

    private static final ApiKey KEY = ApiKey.of("sk-watchdog-test");
    private static final Duration IDLE = Duration.ofSeconds(1);
    /** Far enough past any deadline armed so far. */
    private static final long LATER = Duration.ofMinutes(10).toNanos();

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    private SseClient manualClient(Watchdog watchdog) {
        return open(new SseClient(new HttpSettings(Duration.ofSeconds(5), IDLE), watchdog));
    }

    private static Watchdog manual() {
        return new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
    }

    /** A server that sends one event and then nothing, until closed. */
    private RawServer stallingAfterOneEvent() throws Exception {
        RawServer[] holder = new RawServer[1];
        holder[0] = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: first\n\n");
            holder[0].stall();
        }));
        return holder[0];
    }

    private static void awaitBlocked(Thread thread, CompletableFuture<?> outcome) {
        while (thread.getState() != Thread.State.WAITING && !outcome.isDone()) {
            Thread.onSpinWait();        // until it waits (untimed) for bytes or headers
        }
    }

    @Test
    void aReadIdlePastTheTimeoutFailsWithTheTimeoutErrorAndNotBefore() throws Exception {
        RawServer server = stallingAfterOneEvent();
        Watchdog watchdog = manual();
        URI uri = server.uri("/x");
        SseConnection connection = open(manualClient(watchdog).post(uri, Map.of(), "{}", KEY));
        assertThat(connection.next().data()).isEqualTo("first");

        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                connection.next();
                outcome.complete(null);
            } catch (ProviderException e) {
                outcome.complete(e);
            }
        });
        awaitBlocked(reader, outcome);
        watchdog.tick(System.nanoTime());          // the read began before now: not a second yet
        assertThat(outcome).isNotDone();

        watchdog.tick(System.nanoTime() + LATER);
        ProviderException failure = outcome.get(30, TimeUnit.SECONDS);
        assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(failure.getMessage()).isEqualTo("no data from " + uri + " for 1 s");
    }

    @Test
    void headersThatDoNotComeInTimeFailTheWaitAndLeaveTheThreadUninterrupted() throws Exception {
        RawServer[] holder = new RawServer[1];
        holder[0] = open(new RawServer((out, socket) -> holder[0].stall()));
        Watchdog watchdog = manual();
        SseClient client = manualClient(watchdog);
        URI uri = holder[0].uri("/x");

        CompletableFuture<Object[]> outcome = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            ProviderException failure = catchThrowableOfType(ProviderException.class,
                    () -> client.post(uri, Map.of(), "{}", KEY));
            outcome.complete(new Object[] {failure, Thread.currentThread().isInterrupted()});
        });
        awaitBlocked(caller, outcome);
        watchdog.tick(System.nanoTime());
        assertThat(outcome).isNotDone();

        watchdog.tick(System.nanoTime() + LATER);
        Object[] result = outcome.get(30, TimeUnit.SECONDS);
        ProviderException failure = (ProviderException) result[0];
        assertThat(failure.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(failure.getMessage()).isEqualTo("no response from " + uri + " within 1 s");
        assertThat((Boolean) result[1]).as("interrupted afterwards").isFalse();
    }

    @Test
    void aDrainThatTakesTooLongIsEndedByTheWatchdogAndTheConnectionClosed() throws Exception {
        CountDownLatch bodyEnds = new CountDownLatch(1);
        RawServer server = open(new RawServer((out, socket) -> {
            RawServer.write(out, RawServer.CHUNKED_SSE_HEAD);
            RawServer.chunk(out, "data: answer\n\ndata: [DONE]\n\n");
            bodyEnds.await();                       // the body's end never comes in this test
        }));
        Watchdog watchdog = manual();
        SseConnection connection = open(manualClient(watchdog).post(server.uri("/x"), Map.of(), "{}", KEY));
        assertThat(connection.next().data()).isEqualTo("answer");
        assertThat(connection.next().data()).isEqualTo("[DONE]");

        CompletableFuture<Void> closed = new CompletableFuture<>();
        Thread closer = Thread.ofPlatform().start(() -> {
            connection.closeAfterEnd();
            closed.complete(null);
        });
        awaitBlocked(closer, closed);
        watchdog.tick(System.nanoTime());           // 500 ms have not passed since the drain began
        assertThat(closed).isNotDone();

        watchdog.tick(System.nanoTime() + LATER);
        closed.get(30, TimeUnit.SECONDS);
        assertThat(catchThrowableOfType(ProviderException.class, connection::next).kind()).isEqualTo(Kind.CANCELLED);
        bodyEnds.countDown();
    }

    @Test
    void theThreadStopsTickingWhenThereIsNothingToWatchAndTheNextWaitStartsItAgain() throws Exception {
        Watchdog watchdog = open(new Watchdog(Duration.ofMillis(1).toNanos(), 3, false));
        AtomicLong stops = new AtomicLong();
        CountDownLatch[] stopped = {new CountDownLatch(1), new CountDownLatch(1)};
        watchdog.onStop(() -> stopped[(int) Math.min(1, stops.getAndIncrement())].countDown());
        AtomicInteger expired = new AtomicInteger();
        TestWatch watch = new TestWatch(expired);
        assertThat(watchdog.thread()).as("no thread before anything is watched").isNull();

        assertThat(watchdog.arm(watch, System.nanoTime() + LATER)).isTrue();
        assertThat(watchdog.threadsStarted()).isEqualTo(1);
        Thread first = watchdog.thread();
        watch.disarm();                             // nothing is watched any more: the thread ends
        assertThat(stopped[0].await(60, TimeUnit.SECONDS)).isTrue();
        first.join();

        assertThat(watchdog.arm(watch, System.nanoTime() - 1)).isTrue();   // already past: expires at the next tick
        assertThat(watchdog.threadsStarted()).isEqualTo(2);
        assertThat(watchdog.thread()).isNotSameAs(first);
        synchronized (expired) {
            while (expired.get() == 0) {
                expired.wait();
            }
        }
        watch.finished = true;
        assertThat(stopped[1].await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(watchdog.threadsStarted()).isEqualTo(2);
    }

    @Test
    void closingTheClientStopsItsWatchdog() throws Exception {
        Watchdog watchdog = new Watchdog();
        SseClient client = new SseClient(HttpSettings.defaults(), watchdog);
        CountDownLatch stopped = new CountDownLatch(1);
        watchdog.onStop(stopped::countDown);
        RawServer server = stallingAfterOneEvent();
        SseConnection connection = client.post(server.uri("/x"), Map.of(), "{}", KEY);
        assertThat(connection.next().data()).isEqualTo("first");
        Thread ticking = watchdog.thread();
        assertThat(ticking).isNotNull();

        client.close();
        assertThat(stopped.await(60, TimeUnit.SECONDS)).isTrue();
        ticking.join();
        assertThat(watchdog.isClosed()).isTrue();
        assertThat(watchdog.arm(new TestWatch(new AtomicInteger()), System.nanoTime())).as("armed after close").isFalse();
        assertThat(watchdog.threadsStarted()).isEqualTo(1);
        connection.close();
    }

    @Test
    void aWatchWithNoDeadlineIsLetGoAndPutBackWhenArmedAgain() {
        Watchdog watchdog = manual();
        AtomicInteger expired = new AtomicInteger();
        TestWatch watch = new TestWatch(expired);
        long now = System.nanoTime();
        watchdog.arm(watch, now + 10);
        watchdog.tick(now);
        assertThat(expired).hasValue(0);
        watch.disarm();
        watchdog.tick(now + 20);                    // no deadline: let go
        assertThat(expired).hasValue(0);
        watchdog.arm(watch, now + 30);              // pushed again
        watchdog.tick(now + 40);
        assertThat(expired).hasValue(1);
        watch.disarm();
        watchdog.tick(now + 50);
        watchdog.tick(now + 60);
        assertThat(expired).hasValue(1);
    }

    /** A watch that counts its expiries and can be marked finished. */
    private static final class TestWatch extends Watchdog.Watch {
        private final AtomicInteger expired;
        volatile boolean finished;

        TestWatch(AtomicInteger expired) {
            this.expired = expired;
        }

        @Override
        void expired(long deadline) {
            disarm();
            synchronized (expired) {
                expired.incrementAndGet();
                expired.notifyAll();
            }
        }

        @Override
        boolean finished() {
            return finished;
        }
    }
}
