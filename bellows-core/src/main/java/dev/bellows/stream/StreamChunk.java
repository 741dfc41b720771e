package dev.bellows.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * One frame of a model's streamed answer, as a provider delivers it: a typed value from the
 * provider's decoder to the reader, with no JSON text in between.
 *
 * <p>Frames that carry the answer: {@link Text} (scanned for inline tags), {@link Reasoning}
 * (the provider's own reasoning channel, never scanned), {@link ToolCallDelta} (a piece of a
 * native tool call) and {@link ThinkingSignature} (what makes a reasoning block sendable back
 * to the API). Each of them counts as one chunk for the {@code chunk} index of the events
 * (docs/stream-format.md), an empty one too.
 *
 * <p>Frames about the answer, which count as no chunk and change no event: {@link ResponseInfo}
 * (the response's id and model, once near the start), {@link Usage} (the tokens it used, once
 * at the end) and {@link Restart} (a retry: everything before it is to be dropped, the answer
 * starts again). A {@link StreamProcessor} reads one answer: it ignores the first two and
 * refuses a {@code Restart}, after which the new attempt needs a new processor.
 *
 * <p>Build text and reasoning frames with {@link #message(String)} and {@link #thinking(String)}.
 * All frames are immutable records.
 */
public sealed interface StreamChunk {

    /** A chunk of model text, scanned for inline tags. */
    static StreamChunk message(String text) {
        return new Text(text);
    }

    /** A chunk of provider-typed reasoning, never scanned for tags. */
    static StreamChunk thinking(String text) {
        return new Reasoning(text);
    }

    /**
     * Text the model wrote (the {@code message} type of {@code bellows parse}'s input).
     *
     * @param text the text; may be empty (it changes nothing but still counts as a chunk)
     */
    record Text(String text) implements StreamChunk {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * Reasoning the provider already separated from the text (OpenAI-compatible
     * {@code reasoning_content} / {@code reasoning}, Anthropic thinking blocks; the
     * {@code thinking} type of {@code bellows parse}'s input). Never scanned for tags.
     *
     * @param text the reasoning; may be empty
     */
    record Reasoning(String text) implements StreamChunk {
        public Reasoning {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * One piece of a native tool call, as the APIs stream them: the first piece of a call
     * carries its id and name, later ones more of its arguments. Outside a tag block it ends
     * the message block and provider reasoning, as a tool tag would.
     *
     * @param index     which call of the answer (from 0): several calls come one after another
     * @param id        the call's id, on the piece that starts it (null on later pieces)
     * @param name      the function name, on the piece that starts it (null on later pieces)
     * @param arguments more of the arguments' JSON text, exactly as the provider streamed it
     *                  (empty when the piece has none; null is taken as empty)
     */
    record ToolCallDelta(int index, String id, String name, String arguments) implements StreamChunk {
        public ToolCallDelta {
            if (index < 0) {
                throw new IllegalArgumentException("a tool call index is at least 0, got " + index);
            }
            arguments = arguments == null ? "" : arguments;
        }
    }

    /**
     * The end of a reasoning block that must go back to the API unchanged on later turns
     * (Anthropic's extended thinking): the signature of the reasoning streamed since the last
     * signature, or, for a redacted block (which streams no reasoning), its encrypted data.
     * Exactly one of the two is set.
     *
     * @param signature    the block's signature, or null for a redacted block
     * @param redactedData a redacted block's encrypted data, or null
     */
    record ThinkingSignature(String signature, String redactedData) implements StreamChunk {
        public ThinkingSignature {
            if ((signature == null) == (redactedData == null)) {
                throw new IllegalArgumentException("a thinking signature has either a signature or redacted data");
            }
        }

        /** The signature of the reasoning block just streamed. */
        public static ThinkingSignature signed(String signature) {
            return new ThinkingSignature(Objects.requireNonNull(signature, "signature"), null);
        }

        /** A redacted reasoning block: only its encrypted data. */
        public static ThinkingSignature redacted(String data) {
            return new ThinkingSignature(null, Objects.requireNonNull(data, "data"));
        }

        public boolean isRedacted() {
            return redactedData != null;
        }
    }

    /**
     * Which response this is, as the API reported it (OpenTelemetry's
     * {@code gen_ai.response.id} and {@code gen_ai.response.model}): sent once, before the
     * answer's first chunk or with it, when the API names either. Counts as no chunk.
     *
     * @param id    the response's id ({@code chatcmpl-...}, {@code msg_...}), or null
     * @param model the model that answered, as the API names it (it may differ from the
     *              requested name: a dated version, say), or null
     */
    record ResponseInfo(String id, String model) implements StreamChunk {
    }

    /**
     * The tokens the answer used, as the API reported them: sent once, as the last frame of
     * a complete answer, when the API reported any (the same figures as
     * {@code ChatStream.usage()}). Counts as no chunk.
     *
     * @param inputTokens  tokens of the prompt
     * @param outputTokens tokens of the answer (reasoning included where the API counts it there)
     */
    record Usage(long inputTokens, long outputTokens) implements StreamChunk {
        public Usage {
            if (inputTokens < 0 || outputTokens < 0) {
                throw new IllegalArgumentException("token counts cannot be negative");
            }
        }
    }

    /**
     * The answer starts over: the attempt that streamed the frames before this one failed and
     * is about to be tried again (sent by a retrying provider before it waits). Whatever the
     * reader made of the earlier frames is to be dropped; the frames after this one are the
     * new attempt's, from its beginning. Counts as no chunk.
     *
     * @param attempt              the number of the attempt about to start (2 for the first retry)
     * @param reason               why the previous attempt failed (its error message, key-free)
     * @param delay                the wait before the new attempt
     * @param discardPartialOutput true when the failed attempt had already delivered frames
     */
    record Restart(int attempt, String reason, Duration delay, boolean discardPartialOutput) implements StreamChunk {
        public Restart {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(delay, "delay");
            if (attempt < 2) {
                throw new IllegalArgumentException("a restart starts attempt 2 or later, got " + attempt);
            }
        }
    }
}
