package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.Message;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.util.function.Consumer;

/**
 * The stream processor over one text answer, shared by the readers of text protocols: every
 * stream event but {@code complete} to the run as it happens (then to {@code also}), and the
 * raw text as the model wrote it (tags included), which is what goes back to the model.
 */
final class StreamedAnswer {

    private final StringBuilder raw = new StringBuilder();
    private final StreamProcessor processor;

    StreamedAnswer(StreamOptions options, Consumer<AgentEvent> emit, Consumer<StreamEvent> also) {
        this.processor = new StreamProcessor(options, event -> {
            if (!(event instanceof StreamEvent.Complete)) {
                emit.accept(event);
                also.accept(event);
            }
        });
    }

    void accept(StreamChunk chunk) {
        if (chunk.type() == ContentType.MESSAGE) {
            raw.append(chunk.text());
        }
        processor.accept(chunk);
    }

    StreamEvent.Complete finish() {
        return processor.finish();
    }

    /** The answer as it goes into memory: verbatim. */
    Message assistant() {
        return Message.assistant(raw.toString());
    }
}
