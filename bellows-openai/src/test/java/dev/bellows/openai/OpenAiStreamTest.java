package dev.bellows.openai;

import static dev.bellows.openai.TestSupport.DONE;
import static dev.bellows.openai.TestSupport.chunk;
import static dev.bellows.openai.TestSupport.content;
import static dev.bellows.openai.TestSupport.event;
import static dev.bellows.openai.TestSupport.stop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.stream.StreamChunk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stream decoding over real HTTP: framing, ends of streams, errors inside the stream. */
class OpenAiStreamTest {

    private record Result(List<StreamChunk> chunks, ProviderException failure, ChatStream stream) {
    }

    private static Result run(FakeServer.Script script) throws Exception {
        try (FakeServer server = new FakeServer(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).build()) {
            ChatStream stream = provider.stream(TestSupport.request());
            List<StreamChunk> chunks = new ArrayList<>();
            ProviderException failure = null;
            try (stream) {
                TestSupport.drain(stream, chunks);
            } catch (ProviderException e) {
                failure = e;
            }
            return new Result(chunks, failure, stream);
        }
    }

    private static Result body(String sse) throws Exception {
        return run(conn -> {
            conn.sseHead();
            conn.send(sse);
            conn.end();
        });
    }

    @Test
    void theResponsesIdAndModelComeFirstAndItsUsageLast() throws Exception {
        List<StreamChunk> frames = new ArrayList<>();
        try (FakeServer server = new FakeServer(conn -> {
                 conn.sseHead();
                 conn.send(event("{\"id\":\"chatcmpl-9\",\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,"
                         + "\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}")
                         + event("{\"id\":\"chatcmpl-9\",\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,"
                         + "\"delta\":{},\"finish_reason\":\"stop\"}]}")
                         + event("{\"id\":\"chatcmpl-9\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
                         + "\"completion_tokens\":1}}") + DONE);
                 conn.end();
             });
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).build();
             ChatStream stream = provider.stream(TestSupport.request())) {
            frames.addAll(TestSupport.frames(stream));
            assertThat(stream.usage()).hasValueSatisfying(u -> assertThat(u.totalTokens()).isEqualTo(10));
        }
        assertThat(frames).containsExactly(new StreamChunk.ResponseInfo("chatcmpl-9", "gpt-4o-2024-08-06"),
                StreamChunk.message("Hi"), new StreamChunk.Usage(9, 1));
    }

    @Test
    void noUsageReportedNoUsageFrame() throws Exception {
        List<StreamChunk> frames = new ArrayList<>();
        try (FakeServer server = new FakeServer(conn -> {
                 conn.sseHead();
                 conn.send(content("Hi") + stop() + DONE);
                 conn.end();
             });
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).build();
             ChatStream stream = provider.stream(TestSupport.request())) {
            frames.addAll(TestSupport.frames(stream));
        }
        assertThat(frames).containsExactly(new StreamChunk.ResponseInfo("c1", null), StreamChunk.message("Hi"));
    }

    @Test
    void reasoningAndContentInOneEventThinkingFirst() throws Exception {
        Result r = body(event(chunk("{\"content\":\"B\",\"reasoning_content\":\"A\"}", null)) + stop() + DONE);
        assertThat(r.chunks()).containsExactly(StreamChunk.thinking("A"), StreamChunk.message("B"));
    }

    @Test
    void bothReasoningNamesWithTheSameTextCountOnce() throws Exception {
        Result r = body(event(chunk("{\"reasoning_content\":\"R\",\"reasoning\":\"R\"}", null)) + stop() + DONE);
        assertThat(r.chunks()).containsExactly(StreamChunk.thinking("R"));
    }

    @Test
    void roleOnlyEmptyAndNullDeltasAreIgnoredToolCallDeltasBecomeToolCallChunks() throws Exception {
        Result r = body(event(chunk("{\"role\":\"assistant\"}", null))
                + event(chunk("{\"content\":\"\"}", null))
                + event(chunk("{\"content\":null,\"reasoning_content\":null}", null))
                + event(chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}", null))
                + event("{\"id\":\"x\",\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other choice\"}}]}")
                + content("only") + event(chunk("{}", "tool_calls")) + DONE);
        assertThat(r.chunks()).containsExactly(
                new StreamChunk.ToolCallDelta(0, "call_1", "f", "{}"),
                StreamChunk.message("only"));
        assertThat(r.stream().finishReason()).contains("tool_calls");
    }

    @Test
    void severalToolCallsWithArgumentsInPiecesKeepTheirIndexes() throws Exception {
        Result r = body(event(chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"read\",\"arguments\":\"\"}}]}", null))
                + event(chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"p\"}}]}", null))
                + event(chunk("{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"write\",\"arguments\":\"{}\"}}]}", null))
                + event(chunk("{}", "tool_calls")) + DONE);
        assertThat(r.chunks()).containsExactly(
                new StreamChunk.ToolCallDelta(0, "call_a", "read", ""),
                new StreamChunk.ToolCallDelta(0, null, null, "{\"p"),
                new StreamChunk.ToolCallDelta(1, "call_b", "write", "{}"));
    }

    @Test
    void aMultiByteCharacterSplitAcrossNetworkWrites() throws Exception {
        byte[] bytes = (content("a€b😀c") + stop() + DONE).getBytes(StandardCharsets.UTF_8);
        int euro = indexOf(bytes, (byte) 0xE2);
        int emoji = indexOf(bytes, (byte) 0xF0);
        Result r = run(conn -> {
            conn.sseHead();
            conn.sendBytes(java.util.Arrays.copyOfRange(bytes, 0, euro + 1));          // first byte of €
            conn.sendBytes(java.util.Arrays.copyOfRange(bytes, euro + 1, emoji + 2));  // rest of €, half of 😀
            conn.sendBytes(java.util.Arrays.copyOfRange(bytes, emoji + 2, bytes.length));
            conn.end();
        });
        assertThat(r.failure()).isNull();
        assertThat(r.chunks()).containsExactly(StreamChunk.message("a€b😀c"));
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    @Test
    void crlfAndCrFraming() throws Exception {
        String sse = (content("one") + content("two") + stop() + DONE);
        Result crlf = body(sse.replace("\n", "\r\n"));
        assertThat(crlf.chunks()).containsExactly(StreamChunk.message("one"), StreamChunk.message("two"));
        assertThat(crlf.stream().finishReason()).contains("stop");
        Result cr = body(sse.replace("\n", "\r"));
        assertThat(cr.chunks()).containsExactly(StreamChunk.message("one"), StreamChunk.message("two"));
    }

    @Test
    void commentsKeepAlivesEmptyDataAndOtherEventTypesAreIgnored() throws Exception {
        Result r = body(": keep-alive\n\n:\n\n" + "data:\n\n" + "data: \n\n"
                + "event: ping\ndata: {\"type\":\"ping\"}\n\n"
                + ": OPENROUTER PROCESSING\n" + content("x") + "retry: 1000\n\n" + stop() + DONE);
        assertThat(r.failure()).isNull();
        assertThat(r.chunks()).containsExactly(StreamChunk.message("x"));
    }

    @Test
    void dataSplitOverSeveralLinesIsOneEvent() throws Exception {
        Result r = body("data: {\"choices\":[{\"index\":0,\n" + "data: \"delta\":{\"content\":\"joined\"}}]}\n\n"
                + stop() + DONE);
        assertThat(r.chunks()).containsExactly(StreamChunk.message("joined"));
    }

    @Test
    void doneEndsTheStreamWhateverFollows() throws Exception {
        Result r = body(content("a") + stop() + DONE + content("after done"));
        assertThat(r.failure()).isNull();
        assertThat(r.chunks()).containsExactly(StreamChunk.message("a"));
    }

    @Test
    void cleanEndAfterAFinishReasonWithoutDoneIsAccepted() throws Exception {
        Result r = body(content("a") + event(chunk("{}", "length")));
        assertThat(r.failure()).isNull();
        assertThat(r.chunks()).containsExactly(StreamChunk.message("a"));
        assertThat(r.stream().finishReason()).contains("length");
    }

    @Test
    void endBeforeAnyFinishReasonWithoutDoneIsABrokenStream() throws Exception {
        Result r = body(content("partial"));
        assertThat(r.chunks()).containsExactly(StreamChunk.message("partial"));
        assertThat(r.failure().kind()).isEqualTo(Kind.STREAM_BROKEN);
        assertThat(r.failure().retryable()).isTrue();
        assertThat(r.failure().getMessage()).contains("no finish_reason");
    }

    @Test
    void anEventCutOffBeforeItsBlankLineIsABrokenStream() throws Exception {
        Result r = body(content("partial") + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n");
        assertThat(r.failure().kind()).isEqualTo(Kind.STREAM_BROKEN);
    }

    @Test
    void aConnectionCutMidStreamIsABrokenStream() throws Exception {
        Result r = run(conn -> {
            conn.sseHead();
            conn.send(content("partial"));
            conn.cut();
        });
        assertThat(r.failure().kind()).isEqualTo(Kind.STREAM_BROKEN);
    }

    @Test
    void malformedJsonIsAProtocolErrorNamingTheProblemNotThePayload() throws Exception {
        String payload = "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"secret text " + "x".repeat(500) + "\"}}";
        Result r = body(content("ok") + "data: " + payload + "\n\n" + stop() + DONE);
        assertThat(r.chunks()).containsExactly(StreamChunk.message("ok"));
        assertThat(r.failure().kind()).isEqualTo(Kind.PROTOCOL);
        assertThat(r.failure().getMessage()).contains("malformed JSON in event 2").contains("column")
                .doesNotContain("secret text").hasSizeLessThan(400);
    }

    @Test
    void jsonThatIsNotAnObjectIsAProtocolError() throws Exception {
        Result r = body("data: [1,2]\n\n" + DONE);
        assertThat(r.failure().kind()).isEqualTo(Kind.PROTOCOL);
        assertThat(r.failure().getMessage()).contains("not a JSON object but an array");
    }

    @Test
    void anErrorEventCarriesTheProvidersMessage() throws Exception {
        Result r = body(content("a") + "event: error\ndata: {\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}}\n\n");
        assertThat(r.chunks()).containsExactly(StreamChunk.message("a"));
        assertThat(r.failure().kind()).isEqualTo(Kind.SERVER_ERROR);
        assertThat(r.failure().getMessage()).contains("Overloaded");
    }

    @Test
    void aPlainTextErrorEvent() throws Exception {
        Result r = body("event: error\ndata: upstream timed out\n\n");
        assertThat(r.failure().kind()).isEqualTo(Kind.SERVER_ERROR);
        assertThat(r.failure().getMessage()).endsWith(": upstream timed out");
    }

    @Test
    void errorObjectsAreClassifiedByTheirCode() throws Exception {
        assertThat(errorKind("{\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"))
                .isEqualTo(Kind.RATE_LIMITED);
        assertThat(errorKind("{\"error\":{\"message\":\"slow down\",\"code\":429}}")).isEqualTo(Kind.RATE_LIMITED);
        assertThat(errorKind("{\"error\":{\"message\":\"too long\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}"))
                .isEqualTo(Kind.CLIENT_ERROR);
        assertThat(errorKind("{\"error\":{\"message\":\"boom\",\"code\":503}}")).isEqualTo(Kind.SERVER_ERROR);
        assertThat(errorKind("{\"error\":\"model crashed\"}")).isEqualTo(Kind.SERVER_ERROR);
    }

    private static Kind errorKind(String json) throws Exception {
        Result r = body(content("a") + event(json) + DONE);
        assertThat(r.failure()).as(json).isNotNull();
        return r.failure().kind();
    }

    @Test
    void usageNullIsIgnoredAndTheLastUsageWins() throws Exception {
        Result r = body(event("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"usage\":null}")
                + event("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
                        + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}")
                + event("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}")
                + DONE);
        assertThat(r.stream().usage()).hasValueSatisfying(u -> {
            assertThat(u.inputTokens()).isEqualTo(3);
            assertThat(u.outputTokens()).isEqualTo(2);
        });
    }

    @Test
    void noUsageWhenTheServerSendsNone() throws Exception {
        Result r = body(content("a") + stop() + DONE);
        assertThat(r.stream().usage()).isEmpty();
        assertThat(r.stream().finishReason()).contains("stop");
    }
}
