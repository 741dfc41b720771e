package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.Message;
import dev.bellows.provider.SignedThinking;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The stream processor over one answer, shared by every reader: every stream event but
 * {@code complete} to the run as it happens (then to {@code also}), the raw text as the model
 * wrote it (tags included), which is what goes back to the model, and the signed reasoning
 * blocks (Anthropic's extended thinking), which go back with it unchanged, in every tool mode.
 */
final class StreamedAnswer {

    private final StringBuilder raw = new StringBuilder();
    private final StreamProcessor processor;
    private List<SignedThinking> signed = List.of();
    /** The provider reasoning since the last signature: the text of the block a signature signs. */
    private StringBuilder reasoning;

    /**
     * @param ids the ids to give the answer's {@code tool_call_end} events, or null to leave them
     *            as they are (a reader outside a run, or one that names them itself)
     */
    StreamedAnswer(StreamOptions options, Consumer<AgentEvent> emit, CallIds ids, Consumer<StreamEvent> also) {
        this.processor = new StreamProcessor(options, event -> {
            if (!(event instanceof StreamEvent.Complete)) {
                emit.accept(ids == null ? event : ids.named(event));
                also.accept(event);
            }
        });
    }

    void accept(StreamChunk chunk) {
        switch (chunk) {
            case StreamChunk.Text text -> raw.append(text.text());
            case StreamChunk.Reasoning thinking -> {
                if (reasoning == null) {
                    reasoning = new StringBuilder(Math.max(16, thinking.text().length()));
                }
                reasoning.append(thinking.text());
            }
            case StreamChunk.ThinkingSignature signature -> sign(signature);
            default -> {
                // tool-call deltas are the native reader's; the rest is about the answer, not in it
            }
        }
        processor.accept(chunk);
    }

    private void sign(StreamChunk.ThinkingSignature signature) {
        if (signed.isEmpty()) {
            signed = new ArrayList<>(2);
        }
        if (signature.isRedacted()) {
            signed.add(SignedThinking.redacted(signature.redactedData()));
        } else {
            signed.add(SignedThinking.signed(reasoning == null ? "" : reasoning.toString(), signature.signature()));
        }
        if (reasoning != null) {
            reasoning.setLength(0);
        }
    }

    StreamEvent.Complete finish() {
        return processor.finish();
    }

    /** The answer's text as it goes into memory: verbatim. */
    String text() {
        return raw.toString();
    }

    /** The signed reasoning blocks, in order, to send back unchanged; empty for most answers. */
    List<SignedThinking> signed() {
        return signed;
    }

    /** The answer as it goes into memory: its text verbatim, with its signed reasoning blocks. */
    Message assistant() {
        return signed.isEmpty() ? Message.assistant(raw.toString())
                : Message.assistant(raw.toString(), List.of(), signed);
    }
}
