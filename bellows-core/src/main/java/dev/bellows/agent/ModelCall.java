package dev.bellows.agent;

import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.util.List;

/**
 * One model call of a run, shared by the agents' loops: streams the answer through a
 * {@link StreamProcessor}, every stream event but {@code complete} to the run as it happens;
 * a retry emits {@code retry} and drops what the broken attempt streamed.
 */
final class ModelCall {

    /** A complete answer: the raw text as the model wrote it (tags included) and what it parsed to. */
    record Answer(String raw, StreamEvent.Complete complete) {
    }

    private final RetryingProvider provider;
    private final String model;
    private final StreamOptions streamOptions;
    private final RunHandle run;

    ModelCall(RetryingProvider provider, String model, StreamOptions streamOptions, RunHandle run) {
        this.provider = provider;
        this.model = model;
        this.streamOptions = streamOptions;
        this.run = run;
    }

    /** The attempt being read; a retry replaces it, so nothing of a broken attempt survives. */
    private final class Attempt {
        final StringBuilder raw = new StringBuilder();
        final StreamProcessor processor = new StreamProcessor(streamOptions, event -> {
            if (!(event instanceof StreamEvent.Complete)) {
                run.emit(event);
            }
        });
    }

    Answer stream(List<Message> messages) throws ProviderException {
        if (run.isCancelled()) {
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        ChatRequest request = ChatRequest.builder().model(model).messages(messages).build();
        Attempt[] attempt = {new Attempt()};
        ChatStream stream = provider.stream(request, notice -> {
            run.emit(new LoopEvent.Retry(notice.attempt(), notice.reason(), notice.delay().toMillis()));
            // Whatever the broken attempt streamed (discardPartialOutput) is dropped here; when it
            // streamed nothing, a fresh attempt is the same as the old one.
            attempt[0] = new Attempt();
        });
        try (stream) {
            run.streamStarted(stream);
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                Attempt current = attempt[0];
                if (chunk.type() == ContentType.MESSAGE) {
                    current.raw.append(chunk.text());
                }
                current.processor.accept(chunk);
            }
        } finally {
            run.streamEnded();
        }
        Attempt last = attempt[0];
        return new Answer(last.raw.toString(), last.processor.finish());
    }
}
