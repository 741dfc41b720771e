package dev.bellows.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class ScriptedProviderTest {

    private static final ChatRequest REQUEST = ChatRequest.builder().model("mock")
            .message(Message.system("be brief")).message(Message.user("hello")).build();

    private static List<StreamChunk> drain(ChatStream stream) throws ProviderException {
        List<StreamChunk> chunks = new ArrayList<>();
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            chunks.add(chunk);
        }
        return chunks;
    }

    @Test
    void content_comes_as_message_chunks_of_chunk_size_then_stop_and_usage() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.content("Hello").chunkSize(2)));
        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.finishReason()).isEmpty();
            assertThat(drain(stream)).containsExactly(new StreamChunk.ResponseInfo("chatcmpl-mock-1", "mock"),
                    StreamChunk.message("He"), StreamChunk.message("ll"), StreamChunk.message("o"),
                    new StreamChunk.Usage(4, 2));
            assertThat(stream.finishReason()).hasValue("stop");
            // "be brief" + "hello" = 13 code points -> 4 tokens; "Hello" -> 2
            assertThat(stream.usage()).hasValue(new TokenUsage(4, 2));
            assertThat(stream.next()).isNull();
        }
        assertThat(provider.requests()).containsExactly(REQUEST);
        assertThat(provider.name()).isEqualTo("scripted");
    }

    @Test
    void reasoning_comes_first_as_thinking_chunks() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.reasoning("deep😀thoughts").withContent("Done.").chunkSize(5)));
        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(new StreamChunk.ResponseInfo("chatcmpl-mock-1", "mock"),
                    StreamChunk.thinking("deep😀"), StreamChunk.thinking("thoug"), StreamChunk.thinking("hts"),
                    StreamChunk.message("Done."), new StreamChunk.Usage(4, 5));
        }
    }

    @Test
    void rate_limit_is_thrown_with_retry_after_and_the_body_message() {
        ScriptedProvider provider = new ScriptedProvider(MockScript.parse("""
                {"turns": [{"status": 429, "headers": {"Retry-After": "2"}, "body": {"error": {"message": "slow down"}}}]}"""));
        assertThatThrownBy(() -> provider.stream(REQUEST))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.statusCode()).hasValue(429);
                    assertThat(e.retryAfter()).hasValue(Duration.ofSeconds(2));
                    assertThat(e.getMessage()).contains("slow down");
                });
    }

    @Test
    void status_codes_map_to_the_kinds_of_the_failure_spec() {
        record Case(int status, Kind kind) { }
        List<Case> cases = List.of(new Case(500, Kind.SERVER_ERROR), new Case(503, Kind.SERVER_ERROR),
                new Case(408, Kind.SERVER_ERROR), new Case(409, Kind.SERVER_ERROR), new Case(400, Kind.CLIENT_ERROR),
                new Case(401, Kind.CLIENT_ERROR), new Case(404, Kind.CLIENT_ERROR), new Case(200, Kind.PROTOCOL));
        for (Case c : cases) {
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.status(c.status())));
            assertThatThrownBy(() -> provider.stream(REQUEST)).as("status %d", c.status())
                    .isInstanceOfSatisfying(ProviderException.class, e -> {
                        assertThat(e.kind()).isEqualTo(c.kind());
                        assertThat(e.statusCode()).hasValue(c.status());
                        assertThat(e.retryAfter()).isEmpty();
                    });
        }
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.status(401).errorMessage("bad key")));
        assertThatThrownBy(() -> provider.stream(REQUEST)).hasMessage("HTTP 401: bad key");
    }

    @Test
    void cut_after_breaks_the_stream_after_those_characters() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("This breaks off somewhere").chunkSize(5).cutAfter(7)));
        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.next()).isInstanceOf(StreamChunk.ResponseInfo.class);
            assertThat(stream.next()).isEqualTo(StreamChunk.message("This "));
            assertThat(stream.next()).isEqualTo(StreamChunk.message("br"));
            assertThatThrownBy(stream::next).isInstanceOfSatisfying(ProviderException.class,
                    e -> assertThat(e.kind()).isEqualTo(Kind.STREAM_BROKEN));
            assertThat(stream.finishReason()).isEmpty();
            assertThat(stream.usage()).isEmpty();
        }
    }

    @Test
    void turns_running_out_is_a_server_error() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.content("one")));
        provider.stream(REQUEST).close();
        assertThatThrownBy(() -> provider.stream(REQUEST)).isInstanceOfSatisfying(ProviderException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.SERVER_ERROR);
            assertThat(e.statusCode()).hasValue(500);
            assertThat(e.getMessage()).contains("mock script has no more turns (1 were scripted)");
        });
        assertThat(provider.requests()).hasSize(2);
        assertThat(provider.turnsTaken()).isEqualTo(1);
    }

    @Test
    void cancel_from_another_thread_wakes_a_delayed_next() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("abc").chunkSize(1).delayMs(60_000)));
        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.next()).isInstanceOf(StreamChunk.ResponseInfo.class);
            assertThat(stream.next()).isEqualTo(StreamChunk.message("a"));
            CompletableFuture<Throwable> blocked = Background.supply(() -> {
                try {
                    stream.next();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(50); // let it block in the delay; correctness does not depend on it
            stream.cancel();
            // 60 s: a hang guard, not a measure (the common pool may start the reader late)
            assertThat(blocked.get(60, TimeUnit.SECONDS)).isInstanceOfSatisfying(ProviderException.class,
                    e -> assertThat(e.kind()).isEqualTo(Kind.CANCELLED));
        }
    }

    @Test
    void a_closed_stream_cannot_be_read() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.content("abc")));
        ChatStream stream = provider.stream(REQUEST);
        stream.close();
        assertThatThrownBy(stream::next).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void retry_after_as_an_http_date_and_garbage() {
        assertThat(ScriptedProvider.retryAfter(java.util.Map.of("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")))
                .isEqualTo(Duration.ZERO);
        assertThat(ScriptedProvider.retryAfter(java.util.Map.of("Retry-After", "soon"))).isNull();
        assertThat(ScriptedProvider.retryAfter(java.util.Map.of("Retry-After", "0.5"))).isEqualTo(Duration.ofMillis(500));
    }

    @Property(tries = 300)
    void pieces_concatenate_to_the_text_and_hold_chunk_size_code_points(
            @ForAll @StringLength(max = 40) String text, @ForAll @IntRange(min = 1, max = 9) int size) {
        List<String> pieces = Pieces.split(text, size);
        assertThat(String.join("", pieces)).isEqualTo(text);
        for (int i = 0; i < pieces.size(); i++) {
            int points = pieces.get(i).codePointCount(0, pieces.get(i).length());
            if (i < pieces.size() - 1) {
                assertThat(points).isEqualTo(size);
            } else {
                assertThat(points).isBetween(1, size);
            }
        }
    }

    @Property(tries = 100)
    void emoji_are_never_split(@ForAll @IntRange(min = 1, max = 5) int size, @ForAll @IntRange(max = 12) int count) {
        String text = "😀a".repeat(count);
        for (String piece : Pieces.split(text, size)) {
            assertThat(Character.isHighSurrogate(piece.charAt(piece.length() - 1))).isFalse();
            assertThat(Character.isLowSurrogate(piece.charAt(0))).isFalse();
        }
    }
}
