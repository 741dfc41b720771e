package dev.bellows.anthropic;

import static dev.bellows.anthropic.DocsStreams.MESSAGE_START;
import static dev.bellows.anthropic.DocsStreams.MESSAGE_STOP;
import static dev.bellows.anthropic.DocsStreams.TEXT_BLOCK_START;
import static dev.bellows.anthropic.DocsStreams.blockStop;
import static dev.bellows.anthropic.DocsStreams.messageDelta;
import static dev.bellows.anthropic.DocsStreams.textDelta;
import static dev.bellows.anthropic.FakeAnthropic.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.provider.SignedThinking;
import dev.bellows.stream.StreamChunk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Anthropic's stream events decoded into chunks, finish reason and usage. */
class AnthropicStreamingTest {

    private static final ChatRequest REQUEST =
            ChatRequest.builder().model("claude-sonnet-4-5").message(Message.user("Hello")).build();

    private final FakeAnthropic server = new FakeAnthropic();
    private final AnthropicProvider provider = AnthropicProvider.builder().baseUrl(server.baseUrl()).build();

    AnthropicStreamingTest() throws Exception {
    }

    @AfterEach
    void close() {
        provider.close();
        server.close();
    }

    /**
     * Every chunk of the answer up to the end, the frames about it ({@code ResponseInfo},
     * {@code Usage}) left out; the stream is handed back for its finish reason and usage.
     */
    private static List<StreamChunk> drain(ChatStream stream) throws ProviderException {
        List<StreamChunk> chunks = new ArrayList<>();
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            if (!(chunk instanceof StreamChunk.ResponseInfo) && !(chunk instanceof StreamChunk.Usage)) {
                chunks.add(chunk);
            }
        }
        return chunks;
    }

    @Test
    void theDocumentedBasicStreamBecomesMessageChunks() throws Exception {
        server.then(FakeAnthropic.sse(DocsStreams.BASIC));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(StreamChunk.message("Hello"), StreamChunk.message("!"));
            assertThat(stream.finishReason()).contains("end_turn");
            assertThat(stream.usage()).contains(new TokenUsage(25, 15));
            assertThat(stream.next()).as("after the end").isNull();
        }
    }

    @Test
    void theDocumentedThinkingStreamBecomesThinkingThenMessageChunks() throws Exception {
        server.then(FakeAnthropic.sse(DocsStreams.THINKING));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(
                    StreamChunk.thinking("Let me solve this step by step:\n\n1. First break down 27 * 453"),
                    StreamChunk.thinking("\n2. 453 = 400 + 50 + 3"),
                    // the block's signature when it ends, to send the block back unchanged
                    StreamChunk.ThinkingSignature.signed("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."),
                    StreamChunk.message("27 * 453 = 12,231"));
            assertThat(stream.finishReason()).contains("end_turn");
            assertThat(stream.usage()).contains(new TokenUsage(25, 120));
        }
    }

    @Test
    void usageAndFinishReasonAreKnownAsSoonAsTheApiSaysThem() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "a") + blockStop(0)
                + messageDelta("max_tokens", 1) + MESSAGE_STOP));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.usage()).isEmpty();
            assertThat(stream.next()).isEqualTo(new StreamChunk.ResponseInfo("msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
                    "claude-sonnet-4-5"));
            assertThat(stream.next()).isEqualTo(StreamChunk.message("a"));
            assertThat(stream.usage()).contains(new TokenUsage(25, 1));
            assertThat(stream.finishReason()).isEmpty();
            assertThat(stream.next()).as("the usage, last").isEqualTo(new StreamChunk.Usage(25, 1));
            assertThat(stream.finishReason()).contains("max_tokens");
            assertThat(stream.next()).isNull();
            assertThat(stream.next()).isNull();
        }
    }

    @Test
    void pingsAndUnknownEventsProduceNothingToolUseRedactedThinkingAndSignaturesTheirChunks() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START
                + DocsStreams.PING
                + event("content_block_start", """
                    {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking",\
                    "data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}}""")
                + blockStop(0)
                + event("content_block_start", """
                    {"type":"content_block_start","index":1,"content_block":{"type":"tool_use",\
                    "id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}""")
                + event("content_block_delta", """
                    {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"loc"}}""")
                + blockStop(1)
                + event("content_block_delta", """
                    {"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"abc"}}""")
                + event("future_event", "{\"type\":\"future_event\",\"anything\":[1,2,3]}")
                + event("content_block_delta", """
                    {"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{}}}""")
                + TEXT_BLOCK_START
                + DocsStreams.PING
                + textDelta(4, "")
                + textDelta(4, "only this")
                + DocsStreams.PING
                + blockStop(4)
                + messageDelta("tool_use", 9)
                + DocsStreams.PING
                + MESSAGE_STOP));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(
                    StreamChunk.ThinkingSignature.redacted("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
                    new StreamChunk.ToolCallDelta(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", ""),
                    new StreamChunk.ToolCallDelta(0, null, null, "{\"loc"),
                    // a signature for a block that never started: kept until its block stops (it never does)
                    StreamChunk.message("only this"));
            assertThat(stream.finishReason()).contains("tool_use");
        }
    }

    @Test
    void theTypeInTheDataIsEnoughWithoutAnEventLine() throws Exception {
        String bare = String.join("", DocsStreams.BASIC.lines()
                .filter(line -> !line.startsWith("event:"))
                .map(line -> line + "\n")
                .toList());
        server.then(FakeAnthropic.sse(bare));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(StreamChunk.message("Hello"), StreamChunk.message("!"));
            assertThat(stream.finishReason()).contains("end_turn");
        }
    }

    @Test
    void crlfLineEndingsAreReadToo() throws Exception {
        server.then(FakeAnthropic.sse(DocsStreams.BASIC.replace("\n", "\r\n")));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(drain(stream)).containsExactly(StreamChunk.message("Hello"), StreamChunk.message("!"));
        }
    }

    @Test
    void aUtf8CharacterSplitAcrossWritesArrivesWhole() throws Exception {
        String text = "Grüße, 12 € and 🦀";
        byte[] stream = (MESSAGE_START + TEXT_BLOCK_START + textDelta(0, text) + blockStop(0)
                + messageDelta("end_turn", 5) + MESSAGE_STOP).getBytes(StandardCharsets.UTF_8);
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        byte[] crab = "🦀".getBytes(StandardCharsets.UTF_8);
        int inEuro = indexOf(stream, euro) + 1;      // after the first of its three bytes
        int inCrab = indexOf(stream, crab) + 2;      // in the middle of its four bytes
        server.then(FakeAnthropic.writes(
                Arrays.copyOfRange(stream, 0, inEuro),
                Arrays.copyOfRange(stream, inEuro, inEuro + 1),
                Arrays.copyOfRange(stream, inEuro + 1, inCrab),
                Arrays.copyOfRange(stream, inCrab, stream.length)));

        try (ChatStream chatStream = provider.stream(REQUEST)) {
            assertThat(drain(chatStream)).containsExactly(StreamChunk.message(text));
        }
    }

    @Test
    void eachByteInItsOwnWriteGivesTheSameChunks() throws Exception {
        byte[] stream = DocsStreams.THINKING.replace("12,231", "12.231 ✓").getBytes(StandardCharsets.UTF_8);
        byte[][] parts = new byte[stream.length][];
        for (int i = 0; i < stream.length; i++) {
            parts[i] = new byte[] {stream[i]};
        }
        server.then(FakeAnthropic.writes(parts));

        try (ChatStream chatStream = provider.stream(REQUEST)) {
            assertThat(drain(chatStream)).last().isEqualTo(StreamChunk.message("27 * 453 = 12.231 ✓"));
        }
    }

    @ParameterizedTest
    @CsvSource({
            "overloaded_error,      Overloaded,                    SERVER_ERROR",
            "api_error,             Internal server error,         SERVER_ERROR",
            "timeout_error,         Request timed out,             SERVER_ERROR",
            "rate_limit_error,      Number of request tokens has exceeded your rate limit, RATE_LIMITED",
            "invalid_request_error, prompt is too long,            CLIENT_ERROR",
            "permission_error,      not allowed,                   CLIENT_ERROR",
            "brand_new_error,       something new,                 CLIENT_ERROR",
    })
    void anErrorEventMidStreamFailsWithItsMessageAndAKindByItsType(String type, String message, Kind kind)
            throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "Partial")
                + event("error", "{\"type\": \"error\", \"error\": {\"type\": \"" + type + "\", \"message\": \""
                        + message + "\"}}")
                + textDelta(0, " never read") + MESSAGE_STOP));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(FakeAnthropic.nextOfAnswer(stream)).isEqualTo(StreamChunk.message("Partial"));
            ProviderException e = catchThrowableOfType(ProviderException.class, stream::next);

            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.getMessage()).contains(message).contains(type);
            assertThat(e.statusCode()).isEmpty();
            ProviderException again = catchThrowableOfType(ProviderException.class, stream::next);
            assertThat(again).as("a failed stream stays failed").isSameAs(e);
        }
    }

    @Test
    void endOfStreamBeforeMessageStopIsABrokenStream() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + TEXT_BLOCK_START + textDelta(0, "The answer is")));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(FakeAnthropic.nextOfAnswer(stream)).isEqualTo(StreamChunk.message("The answer is"));
            ProviderException e = catchThrowableOfType(ProviderException.class, stream::next);

            assertThat(e.kind()).isEqualTo(Kind.STREAM_BROKEN);
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("before message_stop");
        }
    }

    @Test
    void anEmptyStreamIsABrokenStream() throws Exception {
        server.then(FakeAnthropic.sse(""));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(catchThrowableOfType(ProviderException.class, stream::next).kind())
                    .isEqualTo(Kind.STREAM_BROKEN);
        }
    }

    @Test
    void malformedJsonIsAProtocolError() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + event("content_block_delta", "{\"type\": \"content_block_delta\", \"delta\": {")
                + MESSAGE_STOP));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.next()).isInstanceOf(StreamChunk.ResponseInfo.class);
            ProviderException e = catchThrowableOfType(ProviderException.class, stream::next);

            assertThat(e.kind()).isEqualTo(Kind.PROTOCOL);
            assertThat(e.getMessage()).contains("malformed JSON").contains("content_block_delta");
        }
    }

    @Test
    void dataThatIsNotAnObjectAndDeltasWithoutTextAreProtocolErrors() throws Exception {
        server.then(FakeAnthropic.sse(MESSAGE_START + event("content_block_delta", "[1, 2]")));
        server.then(FakeAnthropic.sse(MESSAGE_START + event("content_block_delta",
                "{\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\"}}")));

        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.next()).isInstanceOf(StreamChunk.ResponseInfo.class);
            assertThat(catchThrowableOfType(ProviderException.class, stream::next).kind()).isEqualTo(Kind.PROTOCOL);
        }
        try (ChatStream stream = provider.stream(REQUEST)) {
            assertThat(stream.next()).isInstanceOf(StreamChunk.ResponseInfo.class);
            ProviderException e = catchThrowableOfType(ProviderException.class, stream::next);
            assertThat(e.kind()).isEqualTo(Kind.PROTOCOL);
            assertThat(e.getMessage()).contains("text_delta").contains("'text'");
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
