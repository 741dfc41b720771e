package dev.bellows.agent;

import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamChunk;
import java.util.function.Supplier;

/**
 * One model call of a run: streams the answer into an {@link AnswerReader}, which emits the
 * stream events as they happen; a retry emits {@code retry} and starts a new reader, so what
 * the broken attempt streamed is dropped.
 */
final class ModelCall {

    private ModelCall() {
    }

    static AnswerReader.Reading stream(RetryingProvider provider, ChatRequest request, RunHandle run,
                                       Supplier<AnswerReader> readers) throws ProviderException {
        if (run.isCancelled()) {
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        AnswerReader[] attempt = {readers.get()};
        ChatStream stream = provider.stream(request, notice -> {
            run.emit(new LoopEvent.Retry(notice.attempt(), notice.reason(), notice.delay().toMillis()));
            // Whatever the broken attempt streamed (discardPartialOutput) is dropped here; when it
            // streamed nothing, a fresh attempt is the same as the old one.
            attempt[0] = readers.get();
        });
        try (stream) {
            run.streamStarted(stream);
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                attempt[0].accept(chunk);
            }
        } finally {
            run.streamEnded();
        }
        return attempt[0].finish();
    }
}
