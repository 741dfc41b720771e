package dev.bellows.provider;

import dev.bellows.stream.StreamChunk;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ChatStream} that forwards everything to another, for a wrapper that watches or
 * changes a little of it: override what you watch, call {@code super} to pass it on. A model
 * interceptor that counts the chunks of each answer:
 *
 * <pre>{@code
 * ModelInterceptor counting = chain -> new ForwardingChatStream(chain.proceed(chain.request())) {
 *     int chunks;
 *
 *     @Override
 *     public StreamChunk next() throws ProviderException {
 *         StreamChunk chunk = super.next();
 *         if (chunk != null) {
 *             chunks++;
 *         } else {
 *             log.info("{} chunks", chunks);
 *         }
 *         return chunk;
 *     }
 * };
 * }</pre>
 *
 * As thread-safe as the stream it forwards to (a stream is read by one thread; {@code cancel}
 * may come from another).
 */
public abstract class ForwardingChatStream implements ChatStream {

    private final ChatStream delegate;

    protected ForwardingChatStream(ChatStream delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The stream this one forwards to. */
    protected final ChatStream delegate() {
        return delegate;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        return delegate.next();
    }

    @Override
    public Optional<String> finishReason() {
        return delegate.finishReason();
    }

    @Override
    public Optional<TokenUsage> usage() {
        return delegate.usage();
    }

    @Override
    public void cancel() {
        delegate.cancel();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
