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

    /**
     * Closes the stream once the answer is complete (after {@code data: [DONE]}, say) without
     * giving up its connection: what is left of the body (its last bytes, the chunked
     * terminator, HTTP/2's end of stream) is let come and dropped, so that the connection goes
     * back to the pool for the next request. The caller waits for that end, so that its own
     * next request finds the connection back instead of opening another one ({@link #cancel()}
     * ends the wait). The connection is closed only for a broken response: more than 64 KiB
     * after the answer, or no end within the idle timeout. By default, {@link #close()}.
     */
    default void closeAfterEnd() {
        close();
    }

    /** Releases the connection: one whose body has not ended is closed. */
    @Override
    void close();
}
