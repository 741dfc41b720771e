package dev.bellows.temporal.internal;

import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.util.List;

/**
 * One model answer as the model-call activity recorded it: every chunk in the order and with
 * the boundaries it streamed in, so that the loop reading it in the workflow emits the very
 * events a follower saw live.
 *
 * @param finishReason why the model stopped, or null
 * @param usage        the tokens used, or null
 */
public record ModelAnswer(List<StreamChunk> chunks, String finishReason, TokenUsage usage) {

    public ModelAnswer {
        chunks = List.copyOf(chunks);
    }
}
