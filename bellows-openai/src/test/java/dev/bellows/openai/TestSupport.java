package dev.bellows.openai;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;

final class TestSupport {

    static final String SECRET = "sk-test-0123456789abcdefSECRET";

    private TestSupport() {
    }

    static ChatRequest request() {
        return ChatRequest.builder().model("test-model").message(Message.user("Hi")).build();
    }

    /**
     * Every chunk of the answer up to the end, the frames about it ({@code ResponseInfo},
     * {@code Usage}) left out; a failure is thrown after the chunks before it were collected.
     */
    static List<StreamChunk> drain(ChatStream stream, List<StreamChunk> into) throws ProviderException {
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            if (!(chunk instanceof StreamChunk.ResponseInfo) && !(chunk instanceof StreamChunk.Usage)) {
                into.add(chunk);
            }
        }
        return into;
    }

    /** The next chunk of the answer, the frames about it skipped; null at the end. */
    static StreamChunk nextOfAnswer(ChatStream stream) throws ProviderException {
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            if (!(chunk instanceof StreamChunk.ResponseInfo) && !(chunk instanceof StreamChunk.Usage)) {
                return chunk;
            }
        }
        return null;
    }

    /** Every frame up to the end, those about the answer included. */
    static List<StreamChunk> frames(ChatStream stream) throws ProviderException {
        List<StreamChunk> frames = new ArrayList<>();
        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
            frames.add(chunk);
        }
        return frames;
    }

    static List<StreamChunk> drain(ChatStream stream) throws ProviderException {
        return drain(stream, new ArrayList<>());
    }

    /** An SSE event of one data line. */
    static String event(String json) {
        return "data: " + json + "\n\n";
    }

    /** A chat.completion.chunk with one choice. */
    static String chunk(String delta, String finishReason) {
        return "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"finish_reason\":" + (finishReason == null ? "null" : "\"" + finishReason + "\"") + "}]}";
    }

    static String content(String text) {
        return event(chunk("{\"content\":\"" + text + "\"}", null));
    }

    static String stop() {
        return event(chunk("{}", "stop"));
    }

    static final String DONE = "data: [DONE]\n\n";
}
