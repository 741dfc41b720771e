package dev.bellows.agent;

import dev.bellows.stream.StreamChunk;

/**
 * One model answer read as an agent's loop reads it, outside the loop: each chunk given to
 * {@link #accept} emits the stream events the loop would emit for it, {@link #finish()} those of
 * the answer's end. For a process that streams a model call on behalf of a loop that runs
 * elsewhere and shows the answer while it streams (the worker of a durable run); the loop itself
 * never needs it. See {@link DefaultAgent#answerEvents}.
 *
 * <p>One answer, one reader, one thread.
 */
public interface AnswerEvents {

    /** Reads the next chunk of the answer. */
    void accept(StreamChunk chunk);

    /** The answer is complete: emits what its end closes (an open block, a tool call). */
    void finish();
}
