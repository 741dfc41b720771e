package dev.bellows.a2a.server;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A model (the fixture's scripted one) whose first answer stops after some of its chunks until the
 * test releases it, and that tells whether that request was cancelled while it stood there
 * ({@link ChatStream#cancel()}, or the reading thread interrupted).
 */
final class HeldModel implements Provider {

    private final Provider scripted;
    private final int chunks;
    private boolean first = true;
    /** Completes when the first answer stops. */
    final CompletableFuture<Void> reached = new CompletableFuture<>();
    final CompletableFuture<Void> released = new CompletableFuture<>();
    /** Completes when the held request is cancelled. */
    final CompletableFuture<Void> cancelled = new CompletableFuture<>();

    HeldModel(Provider scripted, int chunks) {
        this.scripted = scripted;
        this.chunks = chunks;
    }

    @Override
    public String name() {
        return "held";
    }

    @Override
    public synchronized ChatStream stream(ChatRequest request) throws ProviderException {
        ChatStream inner = scripted.stream(request);
        if (!first) {
            return inner;
        }
        first = false;
        return new ForwardingChatStream(inner) {
            private int given;

            @Override
            public StreamChunk next() throws ProviderException {
                if (given++ == chunks) {
                    reached.complete(null);
                    try {
                        CompletableFuture.anyOf(released, cancelled).get();
                    } catch (InterruptedException e) {
                        cancelled.complete(null);
                        Thread.currentThread().interrupt();
                    } catch (ExecutionException e) {
                        throw new IllegalStateException(e);
                    }
                    if (cancelled.isDone()) {
                        throw new ProviderException(ProviderException.Kind.CANCELLED, "the model call was cancelled");
                    }
                }
                return super.next();
            }

            @Override
            public void cancel() {
                cancelled.complete(null);
                super.cancel();
            }
        };
    }
}
