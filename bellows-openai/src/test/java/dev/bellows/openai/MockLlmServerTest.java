package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.RetryListener;
import dev.bellows.provider.RetryNotice;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamChunk;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The OpenAI-compatible provider against the testkit's MockLlmServer over real HTTP, driven by
 * the script of cli.md's "bellows mock-server" section: the two halves of issue 4 meet here.
 */
class MockLlmServerTest {

    private static final String SECRET = "sk-mock-0123456789-secret";

    /** The example script of cli.md, turn for turn. */
    private static final MockScript CLI_MD_EXAMPLE = MockScript.parse("""
            {"turns": [
              {"content": "<thinking>plan</thinking>\\nHello", "chunk_size": 4},
              {"reasoning": "deep thoughts", "content": "Done.", "delay_ms": 5},
              {"status": 429, "headers": {"Retry-After": "1"}, "body": {"error": {"message": "slow down"}}},
              {"content": "This breaks off somewhere in the middle", "cut_after": 12}
            ]}""");

    private static ChatRequest request() {
        return ChatRequest.builder().model("mock").message(Message.user("hi")).build();
    }

    private static OpenAiProvider provider(MockLlmServer server) {
        return OpenAiProvider.builder().baseUrl(server.baseUrl()).apiKey(ApiKey.of(SECRET)).build();
    }

    private static List<StreamChunk> readAll(ChatStream stream) throws ProviderException {
        List<StreamChunk> chunks = new ArrayList<>();
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            chunks.add(chunk);
        }
        return chunks;
    }

    @Test
    void everyTurnOfTheSpecExampleArrivesAsTheSpecSays() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(CLI_MD_EXAMPLE); OpenAiProvider provider = provider(server)) {
            try (ChatStream first = provider.stream(request())) {
                assertThat(readAll(first)).containsExactly(new StreamChunk.ResponseInfo("chatcmpl-mock-1", "mock"),
                        StreamChunk.message("<thi"), StreamChunk.message("nkin"), StreamChunk.message("g>pl"),
                        StreamChunk.message("an</"), StreamChunk.message("thin"), StreamChunk.message("king"),
                        StreamChunk.message(">\nHe"), StreamChunk.message("llo"), new StreamChunk.Usage(
                                first.usage().orElseThrow().inputTokens(), first.usage().orElseThrow().outputTokens()));
                assertThat(first.finishReason()).contains("stop");
                assertThat(first.usage()).isPresent();
            }
            try (ChatStream second = provider.stream(request())) {
                List<StreamChunk> chunks = readAll(second);
                assertThat(chunks.get(1)).isEqualTo(StreamChunk.thinking("deep"));
                assertThat(String.join("", chunks.stream().filter(StreamChunk.Reasoning.class::isInstance)
                        .map(c -> ((StreamChunk.Reasoning) c).text()).toList())).isEqualTo("deep thoughts");
                assertThat(String.join("", chunks.stream().filter(StreamChunk.Text.class::isInstance)
                        .map(c -> ((StreamChunk.Text) c).text()).toList())).isEqualTo("Done.");
            }
            ProviderException limited = catchThrowableOfType(ProviderException.class, () -> provider.stream(request()));
            assertThat(limited.kind()).isEqualTo(Kind.RATE_LIMITED);
            assertThat(limited.retryAfter()).contains(Duration.ofSeconds(1));
            assertThat(limited.getMessage()).endsWith(": slow down");

            try (ChatStream cut = provider.stream(request())) {
                ProviderException broken = catchThrowableOfType(ProviderException.class, () -> readAll(cut));
                assertThat(broken.kind()).isEqualTo(Kind.STREAM_BROKEN);
                assertThat(broken.getMessage()).doesNotContain(SECRET);
            }

            assertThat(server.requests()).hasSize(4).allSatisfy(recorded -> {
                assertThat(recorded.path()).isEqualTo("/v1/chat/completions");
                assertThat(recorded.header("Authorization")).isEqualTo("Bearer [REDACTED]");
                assertThat(recorded.body().get("stream").asBoolean()).isTrue();
                assertThat(recorded.body().get("model").asString()).isEqualTo("mock");
                assertThat(recorded.body().get("messages").get(0).get("content").asString()).isEqualTo("hi");
            });
        }
    }

    @Test
    void aBrokenStreamIsRetriedAndItsPartialAnswerDiscarded() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"content": "The first answer breaks", "chunk_size": 3, "cut_after": 9},
                  {"status": 503, "body": {"error": {"message": "warming up"}}},
                  {"content": "The second answer", "chunk_size": 5}
                ]}""");
        List<RetryNotice> notices = new ArrayList<>();
        List<Duration> waits = new ArrayList<>();
        List<StreamChunk> seen = new ArrayList<>();
        List<Integer> seenAtNotice = new ArrayList<>();
        RetryListener listener = notice -> {
            notices.add(notice);
            seenAtNotice.add(seen.size());
        };
        try (MockLlmServer server = MockLlmServer.start(script);
             RetryingProvider provider = new RetryingProvider(provider(server), RetryPolicy.defaults(),
                     listener, waits::add, new Random(1))) {
            try (ChatStream stream = provider.stream(request())) {
                for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                    seen.add(chunk);
                }
            }
            // What a consumer saw: part of the first answer (the JDK client may drop what was
            // still buffered when the connection broke), then, after the notices, the second.
            List<String> afterLastNotice = seen.subList(seenAtNotice.get(1), seen.size()).stream()
                    .filter(StreamChunk.Text.class::isInstance).map(c -> ((StreamChunk.Text) c).text()).toList();
            assertThat(String.join("", afterLastNotice)).isEqualTo("The second answer");
            assertThat(notices).hasSize(2);
            assertThat(notices.get(0).discardPartialOutput()).isEqualTo(seenAtNotice.get(0) > 0);
            assertThat(notices.get(1).discardPartialOutput()).isFalse();
            assertThat(notices.get(1).reason()).contains("warming up");
            assertThat(waits).hasSize(2);
            assertThat(waits.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
            assertThat(waits.get(1)).isGreaterThanOrEqualTo(Duration.ofMillis(1000));
            assertThat(server.turnsTaken()).isEqualTo(3);
        }
    }
}
