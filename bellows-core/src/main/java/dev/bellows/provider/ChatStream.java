package dev.bellows.provider;

import dev.bellows.stream.StreamChunk;
import java.util.Optional;

/**
 * One model answer as it streams: chunks of text ({@code MESSAGE}) and of provider-typed
 * reasoning ({@code THINKING}), pulled one at a time on the consuming thread.
 *
 * <pre>{@code
 * try (ChatStream stream = provider.stream(request)) {
 *     for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
 *         processor.accept(chunk);
 *     }
 *     stream.finishReason().ifPresent(reason -> ...);
 * }
 * }</pre>
 *
 * <p>{@link #cancel()} may be called from any thread; the blocked {@link #next()} then throws
 * a {@link ProviderException} of kind {@link ProviderException.Kind#CANCELLED}.
 */
public interface ChatStream extends AutoCloseable {

    /**
     * The next chunk, waiting for it; {@code null} once the answer is complete.
     *
     * @throws ProviderException when the call fails, breaks off, times out or is cancelled
     */
    StreamChunk next() throws ProviderException;

    /** Why the model stopped ({@code stop}, {@code length}, ...), once the API said so. */
    Optional<String> finishReason();

    /** Tokens used, once the API reported them. */
    Optional<TokenUsage> usage();

    /** Stops the call from any thread: the connection is closed and {@link #next()} fails. */
    void cancel();

    /** Releases the connection; the stream cannot be read afterwards. */
    @Override
    void close();
}
