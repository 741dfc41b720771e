package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The body subscriber on its own, driven as the JDK client drives it: lists of buffers one
 * at a time as the reader asks, then the end, a failure, or a cancel. Waits are checked by
 * waiting for the waiting thread's state, never by time.
 */
class BodyStreamTest {

    /** What the body asked of the client. */
    private static final class Subscription implements Flow.Subscription {
        final AtomicLong requested = new AtomicLong();
        final AtomicInteger cancels = new AtomicInteger();

        @Override
        public void request(long n) {
            requested.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        }

        @Override
        public void cancel() {
            cancels.incrementAndGet();
        }
    }

    private final Subscription subscription = new Subscription();
    private final BodyStream body = new BodyStream();

    private static List<ByteBuffer> bytes(String... texts) {
        return java.util.Arrays.stream(texts)
                .map(text -> ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer())
                .toList();
    }

    private String readAll() throws IOException {
        StringBuilder text = new StringBuilder();
        byte[] buffer = new byte[3];
        for (int n; (n = body.read(buffer, 0, buffer.length)) >= 0; ) {
            text.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
        }
        return text.toString();
    }

    /** Runs the action on a new thread and returns once that thread waits (parked). */
    private static Thread waiting(ThrowingRunnable action, AtomicReference<Throwable> failure) {
        Thread thread = Thread.ofPlatform().start(() -> {
            try {
                action.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        while (thread.getState() != Thread.State.WAITING && thread.isAlive()) {
            Thread.onSpinWait();
        }
        return thread;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void readsTheListsInOrderAskingForOneAtATime() throws IOException {
        body.onSubscribe(subscription);
        assertThat(subscription.requested).hasValue(1);
        body.onNext(bytes("data: ", "one\n\n"));
        byte[] buffer = new byte[64];
        assertThat(body.read(buffer, 0, 64)).isEqualTo(6);
        // the list was taken: the next may come while it is read
        assertThat(subscription.requested).hasValue(2);
        assertThat(new String(buffer, 0, body.read(buffer, 0, 64), StandardCharsets.UTF_8)).isEqualTo("one\n\n");
        body.onNext(bytes("data: two\n\n"));
        body.onComplete();
        assertThat(readAll()).isEqualTo("data: two\n\n");
        assertThat(body.read(buffer, 0, 64)).isEqualTo(-1);
        assertThat(body.hasEnded()).isTrue();
        body.close();
        assertThat(subscription.cancels).hasValue(0);   // an ended body has nothing to cancel
    }

    @Test
    void aReadWaitsForTheNextBytes() throws Exception {
        body.onSubscribe(subscription);
        AtomicReference<String> read = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = waiting(() -> read.set(readAll()), failure);
        body.onNext(bytes("abc"));
        while (subscription.requested.get() < 2) {
            Thread.onSpinWait();        // the next list is asked for once the first is taken
        }
        body.onNext(bytes("def"));
        body.onComplete();
        reader.join();
        assertThat(failure.get()).isNull();
        assertThat(read.get()).isEqualTo("abcdef");
    }

    @Test
    void closingCancelsABodyNotEndedAndFailsItsWaitingRead() throws Exception {
        body.onSubscribe(subscription);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = waiting(() -> body.read(new byte[8], 0, 8), failure);
        body.close();
        reader.join();
        assertThat(failure.get()).isInstanceOf(IOException.class).hasMessage("closed");
        assertThat(subscription.cancels).hasValue(1);
        body.close();
        assertThat(subscription.cancels).hasValue(1);
    }

    @Test
    void aBodyClosedBeforeItsResponseCameIsCancelledWhenItDoes() {
        body.close();
        body.onSubscribe(subscription);
        assertThat(subscription.cancels).hasValue(1);
        assertThat(subscription.requested).hasValue(0);
    }

    @Test
    void aFailureEndsTheReadWithItsCause() {
        body.onSubscribe(subscription);
        IOException reset = new IOException("connection reset");
        body.onError(reset);
        assertThatThrownBy(() -> body.read(new byte[8], 0, 8)).isInstanceOf(IOException.class).hasCause(reset);
        assertThat(body.isDone()).isTrue();
        assertThat(body.hasEnded()).isFalse();
    }

    @Test
    void anInterruptedReadClosesTheBodyAndKeepsTheInterrupt() throws Exception {
        body.onSubscribe(subscription);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread reader = waiting(() -> {
            try {
                body.read(new byte[8], 0, 8);
            } finally {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        }, failure);
        reader.interrupt();
        reader.join();
        assertThat(failure.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(stillInterrupted.get()).isTrue();
        assertThat(subscription.cancels).hasValue(1);
    }

    @Test
    void discardingLetsTheBodyEndWithoutAReader() throws Exception {
        body.onSubscribe(subscription);
        body.onNext(bytes("data: [DONE]\n\n", "left over"));
        byte[] buffer = new byte[14];
        assertThat(body.read(buffer, 0, 14)).isEqualTo(14);
        body.discard(1024);
        // no reader asks any more: the client may hand over the rest at once
        assertThat(subscription.requested).hasValue(Long.MAX_VALUE);
        body.onNext(bytes("more"));
        body.onNext(bytes("and more"));
        body.onComplete();
        assertThat(body.awaitEnd()).isTrue();
        assertThat(subscription.cancels).hasValue(0);
    }

    @Test
    void theCallerWaitsForTheEndUntilReleased() throws Exception {
        body.onSubscribe(subscription);
        body.discard(1024);
        AtomicReference<Boolean> ended = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread caller = waiting(() -> ended.set(body.awaitEnd()), failure);
        body.release();
        caller.join();
        assertThat(ended.get()).isFalse();
        // released, not closed: the body still ends on its own, and nothing is cancelled
        body.onNext(bytes("0123456789"));
        body.onComplete();
        assertThat(body.hasEnded()).isTrue();
        assertThat(subscription.cancels).hasValue(0);
    }

    @Test
    void theCallerWaitingForTheEndIsWokenByIt() throws Exception {
        body.onSubscribe(subscription);
        body.discard(1024);
        AtomicReference<Boolean> ended = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread caller = waiting(() -> ended.set(body.awaitEnd()), failure);
        body.onComplete();
        caller.join();
        assertThat(ended.get()).isTrue();
    }

    @Test
    void moreThanTheLimitAfterTheAnswerClosesTheBody() throws IOException {
        body.onSubscribe(subscription);
        body.onNext(bytes("data: [DONE]\n\n"));
        assertThat(body.read(new byte[64], 0, 64)).isEqualTo(14);
        body.discard(8);
        body.onNext(bytes("12345"));
        assertThat(subscription.cancels).hasValue(0);
        body.onNext(bytes("6789"));         // 9 bytes after the answer: one too many
        assertThat(subscription.cancels).hasValue(1);
        assertThat(body.awaitEnd()).isFalse();
        assertThat(body.isDone()).isTrue();
    }

    @Test
    void bytesAtHandWhenDiscardingCountTowardsTheLimit() {
        body.onSubscribe(subscription);
        body.onNext(bytes("0123456789"));
        body.discard(4);                    // ten unread bytes are already more than four
        assertThat(subscription.cancels).hasValue(1);
    }

    /**
     * After the answer, the body's end is waited for however long it takes to come, within the
     * idle timeout: the short wait after which the reader went on without it (500 ms, up to
     * issue 30) is gone, since a reader that goes on makes its next request open another
     * connection. A cancel ends the wait; the body then ends on its own. The watchdog is driven
     * by hand; the end is given by the test.
     */
    @Test
    void theEndIsWaitedForUntilItComesOrACancel() throws Exception {
        String answer = "data: [DONE]\n\n";
        for (boolean cancel : new boolean[] {false, true}) {
            Watchdog byHand = new Watchdog(Watchdog.TICK.toNanos(), Watchdog.QUIET_TICKS, true);
            java.time.Duration idle = java.time.Duration.ofSeconds(120);
            BodyReader reader = new BodyReader(java.net.URI.create("http://127.0.0.1/x"), idle, byHand, null,
                    new AtomicInteger());
            BodyStream stream = new BodyStream();
            Subscription client = new Subscription();
            stream.onSubscribe(client);
            reader.attach(stream);
            stream.onNext(bytes(answer));
            byte[] buffer = new byte[64];
            assertThat(reader.read(buffer)).isEqualTo(answer.length());
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long began = System.nanoTime();
            Thread closer = waiting(() -> reader.finish(DefaultSseConnection.DRAIN_LIMIT), failure);
            while (reader.deadline() == Watchdog.NONE) {
                Thread.onSpinWait();                    // until the wait for the end is armed
            }
            byHand.tick(began + idle.toNanos() - Watchdog.TICK.toNanos());
            assertThat(closer.getState()).isEqualTo(Thread.State.WAITING);     // still waiting for the end
            if (cancel) {
                reader.cancel();
                closer.join();                          // went on without the end...
                assertThat(stream.isDone()).isFalse();
                stream.onComplete();                    // ...which comes on its own
            } else {
                stream.onComplete();
                closer.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(stream.hasEnded()).isTrue();
            assertThat(client.cancels).hasValue(0);
        }
    }
}
