package dev.bellows.http;

import dev.bellows.provider.ProviderException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;

/** An {@link SseConnection} over a {@link BodyReader}. */
final class DefaultSseConnection implements SseConnection {

    private final int statusCode;
    private final Map<String, List<String>> headers;
    /** At most this much of a body may follow its answer; more, and the connection is closed. */
    static final int DRAIN_LIMIT = 64 * 1024;

    private final BodyReader reader;
    private final ArrayDeque<SseEvent> ready = new ArrayDeque<>();
    private final SseParser parser = new SseParser(ready::add);
    // Small: the client hands over what it has in memory, so a bigger buffer saves no reads,
    // and one is allocated for every model call.
    private final byte[] buffer = new byte[2048];
    private boolean ended;

    DefaultSseConnection(int statusCode, Map<String, List<String>> headers, BodyReader reader) {
        this.statusCode = statusCode;
        this.headers = headers;
        this.reader = reader;
    }

    @Override
    public SseEvent next() throws ProviderException {
        reader.checkState();
        while (ready.isEmpty()) {
            if (ended) {
                return null;
            }
            int n = reader.read(buffer);
            if (n < 0) {
                parser.finish();
                ended = true;
            } else {
                parser.feed(buffer, 0, n);
            }
        }
        return ready.poll();
    }

    @Override
    public int statusCode() {
        return statusCode;
    }

    @Override
    public Map<String, List<String>> headers() {
        return headers;
    }

    @Override
    public void cancel() {
        reader.cancel();
    }

    @Override
    public void close() {
        reader.close();
    }

    @Override
    public void closeAfterEnd() {
        if (ended) {
            reader.close();
        } else {
            // Events after the end are not wanted: only the body's end is, so that the client
            // returns the connection to its pool (closing an unended body drops it).
            reader.finish(DRAIN_LIMIT);
        }
    }

    /** The body this connection reads (for tests: whether and how it ended). */
    BodyStream body() {
        return reader.body();
    }

    @Override
    public String toString() {
        return "SseConnection[status=" + statusCode + "]";
    }
}
