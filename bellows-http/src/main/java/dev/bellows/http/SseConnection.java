package dev.bellows.http;

import dev.bellows.provider.ProviderException;
import java.util.List;
import java.util.Map;

/**
 * An open Server-Sent Events response, read one event at a time on the consuming thread.
 *
 * <p>Failures of {@link #next()}: {@link ProviderException.Kind#STREAM_BROKEN} when the
 * connection fails mid-stream, {@link ProviderException.Kind#TIMEOUT} when no byte arrived
 * within the idle timeout, {@link ProviderException.Kind#CANCELLED} after {@link #cancel()}.
 */
public interface SseConnection extends AutoCloseable {

    /**
     * The next event, waiting for it.
     *
     * @return the event, or null when the server closed the stream cleanly (an event without
     *         its terminating blank line is dropped then, as the standard says)
     */
    SseEvent next() throws ProviderException;

    /** The HTTP status (2xx: other statuses never produce a connection). */
    int statusCode();

    /** The response headers, names as the server sent them. */
    Map<String, List<String>> headers();

    /** Aborts the stream from any thread; a blocked or later {@link #next()} throws CANCELLED. */
    void cancel();

    /** Releases the connection. */
    /**
     * Closes the connection once the answer is complete (after {@code data: [DONE]}, say):
     * what is left of the body (its last bytes, the chunked terminator) is read first, up to a
     * small bound and for a short while, so that the HTTP connection can be kept alive for the
     * next request instead of being dropped. A body that does not end soon is closed as
     * {@link #close()} does. By default, {@link #close()}.
     */
    default void closeAfterEnd() {
        close();
    }

    @Override
    void close();
}
