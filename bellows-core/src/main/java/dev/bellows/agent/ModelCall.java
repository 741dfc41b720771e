package dev.bellows.agent;

import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Provider;
import dev.bellows.stream.StreamChunk;
import java.util.function.Supplier;

/**
 * One model call of a run: streams the answer into the machine's {@link AgentMachine.Reader}, which emits the
 * stream events as they happen. A retry comes as a {@link StreamChunk.Restart} frame in the
 * stream: it emits {@code retry} and the answer is read again by a new reader, so what the
 * broken attempt streamed is dropped.
 */
final class ModelCall {

    private ModelCall() {
    }

    static MachineInput stream(Provider provider, ChatRequest request, RunHandle run,
                               Supplier<AgentMachine.Reader> readers) throws ProviderException {
        return stream(provider, request, run, readers, null);
    }

    /** As above; {@code usage}, when given, hears the tokens the call reported (when it did). */
    static MachineInput stream(Provider provider, ChatRequest request, RunHandle run,
                               Supplier<AgentMachine.Reader> readers, java.util.function.LongConsumer usage)
            throws ProviderException {
        if (run.isCancelled()) {
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        AgentMachine.Reader reader = readers.get();
        ChatStream stream = provider.stream(request);
        try (stream) {
            run.streamStarted(stream);
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                if (chunk instanceof StreamChunk.Restart restart) {
                    run.emit(new LoopEvent.Retry(restart.attempt(), restart.reason(), restart.delay().toMillis()));
                    // Whatever the broken attempt streamed (discardPartialOutput) is dropped here; when it
                    // streamed nothing, a fresh reader is the same as the old one.
                    reader = readers.get();
                } else {
                    reader.accept(chunk);
                }
            }
            if (usage != null) {
                stream.usage().ifPresent(used -> usage.accept(used.totalTokens()));
            }
        } finally {
            run.streamEnded();
        }
        return reader.finish();
    }
}
