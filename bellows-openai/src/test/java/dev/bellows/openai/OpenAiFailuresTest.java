package dev.bellows.openai;

import static dev.bellows.openai.TestSupport.DONE;
import static dev.bellows.openai.TestSupport.SECRET;
import static dev.bellows.openai.TestSupport.content;
import static dev.bellows.openai.TestSupport.event;
import static dev.bellows.openai.TestSupport.stop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.http.HttpSettings;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.RetryNotice;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamChunk;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** HTTP failures, time-outs, cancellation, secrets, and retries through RetryingProvider. */
class OpenAiFailuresTest {

    private static OpenAiProvider provider(URI base) {
        return OpenAiProvider.builder().baseUrl(base).apiKey(ApiKey.of(SECRET)).build();
    }

    private static ProviderException streamFailure(FakeServer.Script script) throws Exception {
        try (FakeServer server = new FakeServer(script); OpenAiProvider provider = provider(server.base())) {
            return catchThrowableOfType(ProviderException.class, () -> {
                try (ChatStream stream = provider.stream(TestSupport.request())) {
                    TestSupport.drain(stream);
                }
            });
        }
    }

    /** Everything a failure could print: message, causes, stack trace. */
    private static String everything(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    @ParameterizedTest(name = "HTTP {0}")
    @CsvSource(delimiter = '|', value = {
        "401|Unauthorized|{\"error\":{\"message\":\"Incorrect API key provided: sk-test-0123456789abcdefSECRET.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}|CLIENT_ERROR|Incorrect API key provided",
        "404|Not Found|{\"error\":{\"message\":\"model \\\"nope\\\" not found, try pulling it first\",\"type\":\"api_error\",\"param\":null,\"code\":null}}|CLIENT_ERROR|model \"nope\" not found, try pulling it first",
        "429|Too Many Requests|{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}|RATE_LIMITED|Rate limit reached for gpt-4o-mini",
        "500|Internal Server Error|{\"error\":\"llama runner process has terminated\"}|SERVER_ERROR|llama runner process has terminated",
        "400|Bad Request|{\"object\":\"error\",\"message\":\"max_tokens is too large\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}|CLIENT_ERROR|max_tokens is too large",
        "503|Service Unavailable|upstream overloaded|SERVER_ERROR|upstream overloaded",
    })
    void errorStatusesCarryTheProvidersMessage(int status, String reason, String body, Kind kind, String message)
            throws Exception {
        ProviderException e = streamFailure(conn -> conn.respond(status, reason, "application/json", body));
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e.statusCode()).hasValue(status);
        assertThat(e.getMessage()).contains("HTTP " + status).contains(message).contains("/v1/chat/completions");
        assertThat(everything(e)).doesNotContain(SECRET);
    }

    @Test
    void retryAfterIsReported() throws Exception {
        ProviderException e = streamFailure(conn -> conn.respond(429, "Too Many Requests", "application/json",
                "{\"error\":{\"message\":\"slow down\"}}", "Retry-After: 7"));
        assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
    }

    @Test
    void connectionRefused() throws Exception {
        // A socket bound but not listening: connecting to its port is refused, and no other
        // process can take the port meanwhile (a port closed before use could be reused).
        try (Socket bound = new Socket()) {
            bound.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (OpenAiProvider provider = provider(URI.create("http://127.0.0.1:" + bound.getLocalPort() + "/v1"))) {
                ProviderException e = catchThrowableOfType(ProviderException.class,
                        () -> provider.stream(TestSupport.request()));
                assertThat(e.kind()).isEqualTo(Kind.CONNECTION);
                assertThat(e.retryable()).isTrue();
                assertThat(everything(e)).doesNotContain(SECRET);
            }
        }
    }

    @Test
    void idleTimeout() throws Exception {
        // The idle timeout also covers the wait for the response head and the first bytes, so
        // the scenario (data, then silence) needs "first" to arrive within it. On a machine so
        // loaded that it does not, that attempt times out early, which proves nothing about a
        // stall mid-stream: it is repeated with a longer timeout. Every attempt must end in
        // TIMEOUT, and the test passes only once "first" came and then the stall timed out.
        Duration longest = Duration.ofSeconds(20);
        for (Duration idle = Duration.ofMillis(300); ; idle = idle.multipliedBy(4)) {
            try (FakeServer server = new FakeServer(conn -> {
                conn.sseHead();
                conn.send(content("first"));
                conn.stall();
            }); OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base())
                    .httpSettings(HttpSettings.defaults().withIdleTimeout(idle)).build()) {
                ChatStream stream = null;
                StreamChunk first;
                try {
                    stream = provider.stream(TestSupport.request());
                    first = TestSupport.nextOfAnswer(stream);
                } catch (ProviderException early) {
                    if (stream != null) {
                        stream.close();
                    }
                    assertThat(early.kind()).as("before any data").isEqualTo(Kind.TIMEOUT);
                    assertThat(idle.multipliedBy(4)).as("the head and \"first\" never came within %s: %s", idle, early)
                            .isLessThanOrEqualTo(longest);
                    continue;
                }
                try (ChatStream open = stream) {
                    assertThat(first).isEqualTo(StreamChunk.message("first"));
                    ProviderException e = catchThrowableOfType(ProviderException.class, open::next);
                    assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                    return;
                }
            }
        }
    }

    @Test
    void cancelFromAnotherThread() throws Exception {
        try (FakeServer server = new FakeServer(conn -> {
            conn.sseHead();
            conn.send(content("first"));
            conn.stall();
        }); OpenAiProvider provider = provider(server.base());
             ChatStream stream = provider.stream(TestSupport.request())) {
            assertThat(TestSupport.nextOfAnswer(stream)).isEqualTo(StreamChunk.message("first"));
            CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return stream.next();
                } catch (ProviderException e) {
                    return e;
                }
            }, r -> Thread.ofVirtual().start(r));
            server.awaitStall();
            Thread.sleep(100);                       // let the reader block (not asserted: cancel works either way)
            stream.cancel();
            Object outcome = blocked.get(10, TimeUnit.SECONDS);
            assertThat(outcome).isInstanceOf(ProviderException.class);
            assertThat(((ProviderException) outcome).kind()).isEqualTo(Kind.CANCELLED);
            assertThat(catchThrowableOfType(ProviderException.class, stream::next).kind()).isEqualTo(Kind.CANCELLED);
        }
    }

    @Test
    void theKeyNeverAppearsEvenWhenTheServerEchoesIt() throws Exception {
        List<ProviderException> failures = new ArrayList<>();
        failures.add(streamFailure(conn -> conn.respond(401, "Unauthorized", "text/plain",
                "bad key Bearer " + SECRET + " for header X-Gateway-Key")));
        failures.add(streamFailure(conn -> {
            conn.sseHead();
            conn.send(event("{\"error\":{\"message\":\"key " + SECRET + " revoked\",\"code\":401}}"));
            conn.end();
        }));
        failures.add(streamFailure(conn -> {
            conn.sseHead();
            conn.send("event: error\ndata: key " + SECRET + " revoked\n\n");
            conn.end();
        }));
        failures.add(streamFailure(conn -> {
            conn.sseHead();
            conn.send("data: {\"choices\": " + SECRET + "}\n\n");
            conn.end();
        }));
        for (ProviderException e : failures) {
            assertThat(e).isNotNull();
            assertThat(everything(e)).doesNotContain(SECRET);
            assertThat(e.toString()).doesNotContain(SECRET);
        }
        assertThat(failures.get(0).getMessage()).contains("[REDACTED]");
        assertThat(failures.get(1).getMessage()).contains("key [REDACTED] revoked");
        assertThat(failures.get(1).kind()).isEqualTo(Kind.CLIENT_ERROR);
    }

    @Test
    void extraHeaderValuesAreRedactedToo() throws Exception {
        String gatewayKey = "gw-key-9876543210";
        try (FakeServer server = new FakeServer(conn -> conn.respond(403, "Forbidden", "application/json",
                "{\"error\":{\"message\":\"gateway key " + gatewayKey + " is not allowed\"}}"));
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base())
                     .header("X-Gateway-Key", gatewayKey).build()) {
            ProviderException e = catchThrowableOfType(ProviderException.class,
                    () -> provider.stream(TestSupport.request()));
            assertThat(server.requests().get(0).header("X-Gateway-Key")).isEqualTo(gatewayKey);
            assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
            assertThat(e.getMessage()).contains("gateway key [REDACTED] is not allowed").doesNotContain(gatewayKey);
            assertThat(provider.toString()).doesNotContain(gatewayKey);
        }
    }

    @Test
    void retryingProviderDiscardsTheBrokenFirstAnswer() throws Exception {
        java.util.concurrent.CountDownLatch firstChunkRead = new java.util.concurrent.CountDownLatch(1);
        try (FakeServer server = new FakeServer(
                conn -> {
                    conn.sseHead();
                    conn.send(event("{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"first try\"}}]}"));
                    firstChunkRead.await();          // the consumer has shown part of this answer
                    conn.send(content("Hel"));
                    conn.cut();                      // the connection breaks mid-answer
                },
                conn -> {
                    conn.sseHead();
                    conn.send(content("Hello") + content(" again") + stop()
                            + event("{\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}") + DONE);
                    conn.end();
                })) {
            List<RetryNotice> notices = new CopyOnWriteArrayList<>();
            List<Duration> waits = new CopyOnWriteArrayList<>();
            RetryingProvider retrying = new RetryingProvider(provider(server.base()), RetryPolicy.defaults(),
                    notices::add, waits::add, null);
            List<List<StreamChunk>> attempts = new ArrayList<>();
            attempts.add(new ArrayList<>());
            try (retrying; ChatStream stream = retrying.stream(TestSupport.request())) {
                for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                    if (chunk instanceof StreamChunk.Restart) {
                        attempts.add(new ArrayList<>());     // what was shown so far is discarded
                    } else if (!(chunk instanceof StreamChunk.ResponseInfo) && !(chunk instanceof StreamChunk.Usage)) {
                        attempts.get(attempts.size() - 1).add(chunk);
                    }
                    firstChunkRead.countDown();
                }
                assertThat(stream.finishReason()).contains("stop");
                assertThat(stream.usage()).hasValueSatisfying(u -> assertThat(u.outputTokens()).isEqualTo(2));
            }
            assertThat(notices).hasSize(1);
            RetryNotice notice = notices.get(0);
            assertThat(notice.attempt()).isEqualTo(2);
            assertThat(notice.discardPartialOutput()).isTrue();
            assertThat(notice.reason()).contains("broke off").doesNotContain(SECRET);
            assertThat(waits).hasSize(1);
            // "Hel" may or may not arrive before the break (the JDK client can drop data that
            // precedes a failed read); either way it belongs to the discarded attempt
            assertThat(List.of(StreamChunk.thinking("first try"), StreamChunk.message("Hel")))
                    .startsWith(attempts.get(0).toArray(StreamChunk[]::new));
            assertThat(attempts.get(0)).startsWith(StreamChunk.thinking("first try"));
            assertThat(attempts.get(1)).containsExactly(StreamChunk.message("Hello"), StreamChunk.message(" again"));
            assertThat(server.requests()).hasSize(2);
            assertThat(server.requests().get(1).body()).isEqualTo(server.requests().get(0).body());
        }
    }

    @Test
    void retryingProviderRetriesA429ThenStreams() throws Exception {
        try (FakeServer server = new FakeServer(
                conn -> conn.respond(429, "Too Many Requests", "application/json",
                        "{\"error\":{\"message\":\"slow down\"}}", "Retry-After: 2"),
                conn -> {
                    conn.sseHead();
                    conn.send(content("fine") + stop() + DONE);
                    conn.end();
                })) {
            List<RetryNotice> notices = new CopyOnWriteArrayList<>();
            List<Duration> waits = new CopyOnWriteArrayList<>();
            try (RetryingProvider retrying = new RetryingProvider(provider(server.base()), RetryPolicy.defaults(),
                    notices::add, waits::add, null); ChatStream stream = retrying.stream(TestSupport.request())) {
                List<StreamChunk> frames = TestSupport.frames(stream);
                assertThat(frames.getFirst()).isInstanceOfSatisfying(StreamChunk.Restart.class, restart -> {
                    assertThat(restart.attempt()).isEqualTo(2);
                    assertThat(restart.discardPartialOutput()).isFalse();
                    assertThat(restart.delay()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
                });
                assertThat(frames.subList(1, frames.size())).containsExactly(
                        new StreamChunk.ResponseInfo("c1", null), StreamChunk.message("fine"));
            }
            assertThat(notices).singleElement().satisfies(n -> {
                assertThat(n.discardPartialOutput()).isFalse();
                assertThat(n.reason()).contains("slow down");
            });
            assertThat(waits).singleElement().satisfies(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(2)));
        }
    }
}
