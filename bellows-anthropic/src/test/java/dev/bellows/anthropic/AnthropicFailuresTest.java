package dev.bellows.anthropic;

import dev.bellows.testkit.Background;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_START;
import static dev.bellows.anthropic.DocsStreams.TEXT_BLOCK_START;
import static dev.bellows.anthropic.DocsStreams.textDelta;
import static dev.bellows.anthropic.FakeAnthropic.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.http.HttpSettings;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.RetryNotice;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** HTTP errors, broken connections, time-outs, cancellation, key redaction and retries. */
class AnthropicFailuresTest {

    private static final String SECRET = "sk-ant-api03-SECRET-abcdefghijklmnop";
    private static final ApiKey KEY = ApiKey.of(SECRET);
    private static final ChatRequest REQUEST =
            ChatRequest.builder().model("claude-sonnet-4-5").message(Message.user("Hello")).build();

    private final FakeAnthropic server = new FakeAnthropic();
    private final List<AutoCloseable> resources = new ArrayList<>();

    AnthropicFailuresTest() throws Exception {
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        server.close();
    }

    private AnthropicProvider provider(HttpSettings settings) {
        AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl()).apiKey(KEY)
                .httpSettings(settings).build();
        resources.add(provider);
        return provider;
    }

    private AnthropicProvider provider() {
        return provider(HttpSettings.defaults());
    }

    private static String errorBody(String type, String message) {
        return "{\"type\": \"error\", \"error\": {\"type\": \"" + type + "\", \"message\": \"" + message
                + "\"}, \"request_id\": \"req_011CSHoEeqs5C35K2UUqR7Fy\"}";
    }

    private static void assertNoKey(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain(SECRET).doesNotContain("SECRET-abcdef");
            assertThat(t.toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void unauthorizedIsAClientErrorWithAnthropicsMessage() {
        server.then(FakeAnthropic.error(401, errorBody("authentication_error", "invalid x-api-key")));

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider().stream(REQUEST));

        assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(e.retryable()).isFalse();
        assertThat(e.statusCode()).hasValue(401);
        assertThat(e.getMessage()).contains("401").contains("invalid x-api-key");
        assertNoKey(e);
    }

    @Test
    void rateLimitedCarriesRetryAfter() {
        server.then(FakeAnthropic.error(429,
                errorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
                Map.of("Retry-After", "7", "anthropic-ratelimit-requests-remaining", "0")));

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider().stream(REQUEST));

        assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(e.statusCode()).hasValue(429);
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
        assertThat(e.getMessage()).contains("per-minute rate limit");
    }

    @Test
    void overloadedIsARetryableServerError() {
        server.then(FakeAnthropic.error(529, errorBody("overloaded_error", "Overloaded")));

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider().stream(REQUEST));

        assertThat(e.kind()).isEqualTo(Kind.SERVER_ERROR);
        assertThat(e.retryable()).isTrue();
        assertThat(e.statusCode()).hasValue(529);
        assertThat(e.getMessage()).contains("529").contains("Overloaded");
    }

    @Test
    void aRefusedConnectionIsAConnectionFailure() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        AnthropicProvider provider = AnthropicProvider.builder().baseUrl("http://127.0.0.1:" + port).apiKey(KEY).build();
        resources.add(provider);

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider.stream(REQUEST));

        assertThat(e.kind()).isEqualTo(Kind.CONNECTION);
        assertThat(e.getMessage()).contains("127.0.0.1:" + port);
        assertNoKey(e);
    }

    @Test
    void aStreamThatFallsSilentTimesOut() throws Exception {
        // The idle timeout also bounds the wait for the head and the first bytes: on a machine so
        // loaded that they come later than that, the attempt times out before the silence it is
        // about, and is repeated with a longer timeout. Passing needs data, then a TIMEOUT.
        for (Duration idle = Duration.ofMillis(200); ; idle = idle.multipliedBy(4)) {
            server.then(FakeAnthropic.stallAfter(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "Thinking about")));
            AnthropicProvider provider = provider(HttpSettings.defaults().withIdleTimeout(idle));
            ChatStream stream = null;
            StreamChunk first;
            try {
                stream = provider.stream(REQUEST);
                first = FakeAnthropic.nextOfAnswer(stream);
            } catch (ProviderException early) {
                if (stream != null) {
                    stream.close();
                }
                assertThat(early.kind()).as("before any data").isEqualTo(Kind.TIMEOUT);
                assertThat(idle.multipliedBy(4)).as("no data within %s: %s", idle, early)
                        .isLessThanOrEqualTo(Duration.ofSeconds(20));
                continue;
            }
            try (ChatStream open = stream) {
                assertThat(first).isEqualTo(StreamChunk.message("Thinking about"));
                ProviderException e = catchThrowableOfType(ProviderException.class, open::next);

                assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                return;
            }
        }
    }

    @Test
    void cancelFromAnotherThreadEndsABlockedRead() throws Exception {
        server.then(FakeAnthropic.stallAfter(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "Once upon")));
        CountDownLatch firstChunk = new CountDownLatch(1);

        try (ChatStream stream = provider().stream(REQUEST)) {
            CompletableFuture<Void> canceller = Background.run(() -> {
                try {
                    firstChunk.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stream.cancel();
            });
            assertThat(FakeAnthropic.nextOfAnswer(stream)).isEqualTo(StreamChunk.message("Once upon"));
            firstChunk.countDown();
            // blocks (the server sends nothing more) until the other thread cancels
            ProviderException e = catchThrowableOfType(ProviderException.class, stream::next);

            assertThat(e.kind()).isEqualTo(Kind.CANCELLED);
            assertThat(e.retryable()).isFalse();
            canceller.get(10, TimeUnit.SECONDS);
            assertThat(catchThrowableOfType(ProviderException.class, stream::next).kind()).isEqualTo(Kind.CANCELLED);
        }
    }

    @Test
    void theKeyNeverAppearsEvenWhenTheServerEchoesIt() throws Exception {
        AnthropicProvider provider = provider();
        server.then(FakeAnthropic.error(400, errorBody("invalid_request_error", "bad key " + SECRET + " in request")));
        server.then(FakeAnthropic.error(401, "<html>no JSON here: key=" + SECRET + "</html>"));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("error", errorBody("authentication_error", "x-api-key " + SECRET + " revoked"))));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("content_block_delta", "{\"type\": \"content_block_delta\", \"delta\": \"" + SECRET)));
        server.then(FakeAnthropic.sse(MESSAGE_START
                + event("error", errorBody("api_error", "x".repeat(290) + SECRET))));

        List<ProviderException> failures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (ChatStream stream = provider.stream(REQUEST)) {
                while (stream.next() != null) {
                    // drain
                }
                throw new AssertionError("answer " + i + " should have failed");
            } catch (ProviderException e) {
                failures.add(e);
            }
        }

        assertThat(failures).extracting(ProviderException::kind).containsExactly(
                Kind.CLIENT_ERROR, Kind.CLIENT_ERROR, Kind.CLIENT_ERROR, Kind.PROTOCOL, Kind.SERVER_ERROR);
        assertThat(failures.get(0).getMessage()).contains("bad key [REDACTED] in request");
        assertThat(failures.get(2).getMessage()).contains("x-api-key [REDACTED] revoked");
        failures.forEach(AnthropicFailuresTest::assertNoKey);
        assertThat(provider.toString()).doesNotContain(SECRET).contains("[REDACTED]");
        assertThat(server.requests()).allSatisfy(request -> assertThat(request.header("x-api-key")).isEqualTo(SECRET));
    }

    @Test
    void toStringShowsTheSetupButNoSecrets() {
        AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl()).apiKey(KEY)
                .header("anthropic-beta", "secret-beta-value").thinking(2048).build();
        resources.add(provider);

        assertThat(provider.toString())
                .contains("/v1/messages").contains("2023-06-01").contains("anthropic-beta").contains("thinkingBudget=2048")
                .doesNotContain(SECRET).doesNotContain("secret-beta-value");
    }

    @Test
    void retryingProviderRetriesAnOverloadedAnswerAndThenStreams() throws Exception {
        server.then(FakeAnthropic.error(529, errorBody("overloaded_error", "Overloaded")));
        server.then(FakeAnthropic.sse(DocsStreams.BASIC));
        List<RetryNotice> notices = new CopyOnWriteArrayList<>();
        List<Duration> waits = new CopyOnWriteArrayList<>();
        RetryingProvider retrying = new RetryingProvider(provider(), RetryPolicy.defaults(), notices::add,
                waits::add, null);

        List<StreamChunk> chunks = new ArrayList<>();
        try (ChatStream stream = retrying.stream(REQUEST)) {
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                chunks.add(chunk);
            }
            assertThat(stream.finishReason()).contains("end_turn");
            assertThat(stream.usage()).contains(new TokenUsage(25, 15));
        }

        StreamChunk.ResponseInfo response = new StreamChunk.ResponseInfo("msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
                "claude-sonnet-4-5");
        assertThat(chunks.getFirst()).isInstanceOfSatisfying(StreamChunk.Restart.class, restart -> {
            assertThat(restart.attempt()).isEqualTo(2);
            assertThat(restart.discardPartialOutput()).isFalse();
        });
        assertThat(chunks.subList(1, chunks.size())).containsExactly(response, StreamChunk.message("Hello"),
                StreamChunk.message("!"), new StreamChunk.Usage(25, 15));
        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.attempt()).isEqualTo(2);
            assertThat(notice.reason()).contains("Overloaded");
            assertThat(notice.discardPartialOutput()).isFalse();
        });
        assertThat(waits).hasSize(1);
        assertThat(server.requests()).hasSize(2);
        assertThat(server.requests().get(1).body()).isEqualTo(server.requests().get(0).body());
    }

    @Test
    void retryingProviderRestartsAnAnswerBrokenByAnOverloadedErrorEvent() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "Hel")
                + event("error", errorBody("overloaded_error", "Overloaded"))));
        server.then(FakeAnthropic.sse(DocsStreams.BASIC));
        List<RetryNotice> notices = new CopyOnWriteArrayList<>();
        RetryingProvider retrying = new RetryingProvider(provider(), RetryPolicy.defaults(), notices::add,
                delay -> { }, null);

        List<StreamChunk> chunks = new ArrayList<>();
        try (ChatStream stream = retrying.stream(REQUEST)) {
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                chunks.add(chunk);
            }
        }

        StreamChunk.ResponseInfo response = new StreamChunk.ResponseInfo("msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
                "claude-sonnet-4-5");
        assertThat(chunks).hasSize(7);
        assertThat(chunks.subList(0, 2)).containsExactly(response, StreamChunk.message("Hel"));
        assertThat(chunks.get(2)).as("the answer starts over").isInstanceOfSatisfying(StreamChunk.Restart.class,
                restart -> assertThat(restart.discardPartialOutput()).isTrue());
        assertThat(chunks.subList(3, 7)).containsExactly(response, StreamChunk.message("Hello"), StreamChunk.message("!"),
                new StreamChunk.Usage(25, 15));
        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.discardPartialOutput()).as("'Hel' must be discarded").isTrue();
            assertThat(notice.reason()).contains("overloaded_error");
        });
    }

    @Test
    void retryingProviderDoesNotRetryAnUnauthorizedAnswer() {
        server.then(FakeAnthropic.error(401, errorBody("authentication_error", "invalid x-api-key")));
        RetryingProvider retrying = new RetryingProvider(provider(), RetryPolicy.defaults(), notice -> { },
                delay -> { }, null);

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> retrying.stream(REQUEST));

        assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(server.requests()).hasSize(1);
    }
}
