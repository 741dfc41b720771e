package dev.bellows.provider;

import dev.bellows.stream.StreamChunk;
import java.util.Optional;

/**
 * One model answer as it streams: typed frames ({@link StreamChunk}) pulled one at a time on
 * the consuming thread: text, the provider's reasoning, native tool-call deltas and thinking
 * signatures, which make up the answer; the response's id and model
 * ({@link StreamChunk.ResponseInfo}) near the start and its token usage
 * ({@link StreamChunk.Usage}) at the end; and, from a {@link RetryingProvider}, a
 * {@link StreamChunk.Restart} when a failed attempt is retried, after which the answer
 * starts again from its beginning.
 *
 * <pre>{@code
 * try (ChatStream stream = provider.stream(request)) {
 *     StreamProcessor processor = new StreamProcessor(options, listener);
 *     for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
 *         switch (chunk) {
 *             case StreamChunk.Restart restart -> processor = new StreamProcessor(options, listener);
 *             case StreamChunk.Usage usage -> System.out.println(usage.outputTokens() + " tokens out");
 *             default -> processor.accept(chunk);
 *         }
 *     }
 *     processor.finish();
 *     stream.finishReason().ifPresent(reason -> ...);
 * }
 * }</pre>
 *
 * <p>A wrapper (an interceptor watching a model call, say) sees every frame as it passes:
 * the response's id and model in {@code ResponseInfo}, the tokens in {@code Usage}, which
 * also remain readable afterwards through {@link #usage()}.
 *
 * <p>{@link #cancel()} may be called from any thread; the blocked {@link #next()} then throws
 * a {@link ProviderException} of kind {@link ProviderException.Kind#CANCELLED}.
 */
public interface ChatStream extends AutoCloseable {

    /**
     * The next frame, waiting for it; {@code null} once the answer is complete.
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
