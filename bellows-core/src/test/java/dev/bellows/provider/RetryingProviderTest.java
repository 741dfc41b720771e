package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.stream.StreamChunk;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RetryingProviderTest {

    private static final ChatRequest REQUEST = ChatRequest.builder().model("m").message(Message.user("hi")).build();

    /** What one attempt of the fake does: fail to start, or stream chunks and then end or fail. */
    record Attempt(ProviderException failsToStart, List<String> chunks, ProviderException failsAfterChunks) {
        static Attempt refused(ProviderException e) {
            return new Attempt(e, List.of(), null);
        }

        static Attempt streams(String... chunks) {
            return new Attempt(null, List.of(chunks), null);
        }

        static Attempt breaksAfter(ProviderException e, String... chunks) {
            return new Attempt(null, List.of(chunks), e);
        }
    }

    static final class FakeProvider implements Provider {
        final Deque<Attempt> attempts;
        int calls;

        FakeProvider(Attempt... attempts) {
            this.attempts = new ArrayDeque<>(List.of(attempts));
        }

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public ChatStream stream(ChatRequest request) throws ProviderException {
            calls++;
            Attempt attempt = attempts.removeFirst();
            if (attempt.failsToStart() != null) {
                throw attempt.failsToStart();
            }
            return new ChatStream() {
                int index;

                @Override
                public StreamChunk next() throws ProviderException {
                    if (index < attempt.chunks().size()) {
                        return StreamChunk.message(attempt.chunks().get(index++));
                    }
                    if (attempt.failsAfterChunks() != null) {
                        throw attempt.failsAfterChunks();
                    }
                    return null;
                }

                @Override
                public Optional<String> finishReason() {
                    return index == attempt.chunks().size() ? Optional.of("stop") : Optional.empty();
                }

                @Override
                public Optional<TokenUsage> usage() {
                    return Optional.empty();
                }

                @Override
                public void cancel() {
                }

                @Override
                public void close() {
                }
            };
        }
    }

    static ProviderException status(int code, Kind kind, Duration retryAfter) {
        return new ProviderException(kind, "HTTP " + code + " from http://127.0.0.1/v1: boom", code, retryAfter, null);
    }

    static ProviderException broken() {
        return new ProviderException(Kind.STREAM_BROKEN, "the stream from http://127.0.0.1/v1 broke off: reset");
    }

    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private final List<String> log = new ArrayList<>();     // chunks and notices, in order
    private final List<RetryNotice> notices = new ArrayList<>();

    private RetryingProvider retrying(Provider fake, RetryPolicy policy) {
        return new RetryingProvider(fake, policy, notice -> {
            notices.add(notice);
            log.add("retry " + notice.attempt() + (notice.discardPartialOutput() ? " discard" : ""));
        }, delay -> {
            sleeps.add(delay);
            log.add("wait " + delay.toMillis());
        }, RetryPolicyTest.NO_JITTER);
    }

    /** The texts of the stream's frames, the restarts dropped (all of them logged). */
    private List<String> drain(ChatStream stream) throws ProviderException {
        List<String> texts = new ArrayList<>();
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            if (chunk instanceof StreamChunk.Restart restart) {
                log.add("restart " + restart.attempt() + (restart.discardPartialOutput() ? " discard" : ""));
            } else {
                texts.add(text(chunk));
                log.add(text(chunk));
            }
        }
        return texts;
    }

    private static String text(StreamChunk chunk) {
        return ((StreamChunk.Text) chunk).text();
    }

    @Test
    void retriesAFailedStartThenSucceeds() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(503, Kind.SERVER_ERROR, null)), Attempt.streams("Hel", "lo"));
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly("Hel", "lo");
            assertThat(stream.finishReason()).hasValue("stop");
        }
        assertThat(fake.calls).isEqualTo(2);
        assertThat(sleeps).containsExactly(Duration.ofMillis(500));
        assertThat(notices).containsExactly(
                new RetryNotice(2, "HTTP 503 from http://127.0.0.1/v1: boom", Duration.ofMillis(500), false));
    }

    @Test
    void aRestartFrameAnnouncesEachRetryBeforeItsWait() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.breaksAfter(broken(), "Hel"), Attempt.refused(status(429, Kind.RATE_LIMITED, Duration.ofSeconds(3))),
                Attempt.streams("Hello"));
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST)) {
            assertThat(text(stream.next())).isEqualTo("Hel");
            assertThat(stream.next()).isEqualTo(new StreamChunk.Restart(2,
                    "the stream from http://127.0.0.1/v1 broke off: reset", Duration.ofMillis(500), true));
            assertThat(sleeps).isEmpty();               // the wait comes with the next read, after the consumer reset
            assertThat(stream.next()).isEqualTo(new StreamChunk.Restart(3,
                    "HTTP 429 from http://127.0.0.1/v1: boom", Duration.ofSeconds(3), false));
            assertThat(sleeps).containsExactly(Duration.ofMillis(500));
            assertThat(text(stream.next())).isEqualTo("Hello");
            assertThat(stream.next()).isNull();
        }
        assertThat(sleeps).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(3));
        assertThat(notices).extracting(RetryNotice::attempt).containsExactly(2, 3);
    }

    @Test
    void midStreamBreakIsRetriedAndThePartialOutputDiscarded() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.breaksAfter(broken(), "Hel", "lo wo"), Attempt.streams("Hello", " world"));
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST)) {
            drain(stream);
        }
        assertThat(log).containsExactly("Hel", "lo wo", "retry 2 discard", "restart 2 discard", "wait 500",
                "Hello", " world");
        assertThat(notices.getFirst().reason()).contains("broke off");
    }

    @Test
    void onlyTheAttemptThatReturnedChunksAsksForADiscard() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.breaksAfter(broken(), "a"),
                Attempt.refused(status(502, Kind.SERVER_ERROR, null)),
                Attempt.breaksAfter(broken()),
                Attempt.streams("b"));
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST)) {
            drain(stream);
        }
        assertThat(log).containsExactly("a", "retry 2 discard", "restart 2 discard", "wait 500",
                "retry 3", "restart 3", "wait 1000", "retry 4", "restart 4", "wait 2000", "b");
        assertThat(sleeps).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    @Test
    void nonRetryableFailureIsThrownAtOnce() {
        ProviderException unauthorized = status(401, Kind.CLIENT_ERROR, null);
        FakeProvider fake = new FakeProvider(Attempt.refused(unauthorized), Attempt.streams("never"));

        ProviderException thrown = catchThrowableOfType(ProviderException.class,
                () -> retrying(fake, RetryPolicy.defaults()).stream(REQUEST));

        assertThat(thrown).isSameAs(unauthorized);
        assertThat(fake.calls).isEqualTo(1);
        assertThat(sleeps).isEmpty();
        assertThat(notices).isEmpty();
    }

    @Test
    void nonRetryableFailureOfARetrySaysHowManyAttempts() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(500, Kind.SERVER_ERROR, null)), Attempt.refused(status(400, Kind.CLIENT_ERROR, null)));
        ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST);
        assertThat(stream.next()).isInstanceOf(StreamChunk.Restart.class);
        ProviderException thrown = catchThrowableOfType(ProviderException.class, stream::next);
        assertThat(thrown.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(thrown.statusCode()).hasValue(400);
        assertThat(thrown.getMessage()).isEqualTo("HTTP 400 from http://127.0.0.1/v1: boom (gave up after 2 attempts)");
    }

    @Test
    void exhaustedRetriesThrowTheLastFailure() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(500, Kind.SERVER_ERROR, null)),
                Attempt.refused(status(502, Kind.SERVER_ERROR, null)),
                Attempt.breaksAfter(broken(), "x"),
                Attempt.refused(status(429, Kind.RATE_LIMITED, Duration.ofSeconds(1))),
                Attempt.streams("never"));
        ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST);

        List<String> seen = new ArrayList<>();
        ProviderException thrown = catchThrowableOfType(ProviderException.class, () -> {
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                if (!(chunk instanceof StreamChunk.Restart)) {
                    seen.add(text(chunk));
                }
            }
        });

        assertThat(fake.calls).isEqualTo(4);
        assertThat(seen).containsExactly("x");
        assertThat(thrown.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(thrown.statusCode()).hasValue(429);
        assertThat(thrown.getMessage()).endsWith("(gave up after 4 attempts)");
        assertThat(sleeps).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));
    }

    @Test
    void noRetriesConfiguredThrowsTheFirstFailure() {
        ProviderException unavailable = status(503, Kind.SERVER_ERROR, null);
        FakeProvider fake = new FakeProvider(Attempt.refused(unavailable));
        assertThat(catchThrowableOfType(ProviderException.class,
                () -> retrying(fake, RetryPolicy.none()).stream(REQUEST))).isSameAs(unavailable);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void retryAfterIsHonouredAndCapped() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(429, Kind.RATE_LIMITED, Duration.ofSeconds(7))),
                Attempt.refused(status(429, Kind.RATE_LIMITED, Duration.ofHours(2))),
                Attempt.streams("ok"));
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly("ok");
        }
        assertThat(sleeps).containsExactly(Duration.ofSeconds(7), Duration.ofSeconds(60));
        assertThat(notices).extracting(RetryNotice::delay).containsExactly(Duration.ofSeconds(7), Duration.ofSeconds(60));
    }

    @Test
    void cancellationDuringTheBackoffAbortsAtOnce() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(503, Kind.SERVER_ERROR, null)), Attempt.streams("never"));
        RetryingProvider provider = new RetryingProvider(fake, RetryPolicy.defaults(), RetryListener.NONE, delay -> {
            sleeps.add(delay);
            sleeping.countDown();
            Thread.sleep(Duration.ofMinutes(10));        // only an interrupt ends this
        }, RetryPolicyTest.NO_JITTER);
        ChatStream stream = provider.stream(REQUEST);

        CompletableFuture<ProviderException> outcome = new CompletableFuture<>();
        AtomicBoolean interruptLeaked = new AtomicBoolean();
        Thread consumer = Thread.ofPlatform().start(() -> {
            try {
                if (!(stream.next() instanceof StreamChunk.Restart)) {
                    throw new AssertionError("the refused first attempt is announced by a restart frame");
                }
                stream.next();                       // the wait
                outcome.complete(null);
            } catch (ProviderException e) {
                outcome.complete(e);
            }
            interruptLeaked.set(Thread.currentThread().isInterrupted());
        });
        assertThat(sleeping.await(30, TimeUnit.SECONDS)).isTrue();
        stream.cancel();

        ProviderException thrown = outcome.get(30, TimeUnit.SECONDS);
        consumer.join();
        assertThat(thrown).isNotNull();
        assertThat(interruptLeaked).isFalse();      // cancel()'s interrupt is consumed, not left on the thread
        assertThat(thrown.kind()).isEqualTo(Kind.CANCELLED);
        assertThat(fake.calls).isEqualTo(1);
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void cancellationBeforeTheWaitSkipsIt() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.breaksAfter(broken(), "a"), Attempt.streams("never"));
        ChatStream[] holder = new ChatStream[1];
        RetryingProvider provider = new RetryingProvider(fake, RetryPolicy.defaults(), notice -> holder[0].cancel(),
                sleeps::add, RetryPolicyTest.NO_JITTER);
        holder[0] = provider.stream(REQUEST);
        assertThat(text(holder[0].next())).isEqualTo("a");
        assertThat(holder[0].next()).isInstanceOf(StreamChunk.Restart.class);
        assertThat(catchThrowableOfType(ProviderException.class, holder[0]::next).kind()).isEqualTo(Kind.CANCELLED);
        assertThat(sleeps).isEmpty();
        assertThat(fake.calls).isEqualTo(1);
    }

    @Test
    void perStreamListenerReplacesTheProvidersOne() throws Exception {
        FakeProvider fake = new FakeProvider(
                Attempt.refused(status(503, Kind.SERVER_ERROR, null)), Attempt.streams("ok"));
        List<RetryNotice> mine = new ArrayList<>();
        try (ChatStream stream = retrying(fake, RetryPolicy.defaults()).stream(REQUEST, mine::add)) {
            drain(stream);
        }
        assertThat(mine).hasSize(1);
        assertThat(notices).isEmpty();
    }
}
