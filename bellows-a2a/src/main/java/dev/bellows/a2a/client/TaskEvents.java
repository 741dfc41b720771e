package dev.bellows.a2a.client;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskState;
import dev.bellows.http.SseEvent;
import dev.bellows.http.SseParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * The events of one streamed task ({@code SendStreamingMessage} or {@code SubscribeToTask}), read
 * as they arrive: the task (or one direct message) first, then status and artifact updates, until
 * the task ends or pauses (input or auth required), where the agent closes the stream.
 *
 * <pre>{@code
 * try (TaskEvents events = client.stream(Message.of(Role.USER, List.of(Part.text("hello"))))) {
 *     for (StreamResponse event : events) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Not thread-safe, but {@link #close()} may be called from any thread: it ends the
 * connection, and a {@link #next()} blocked on it fails as {@link A2aClientException.Kind#CANCELLED}.
 * An event the agent sent as an A2A error is thrown as a {@link dev.bellows.a2a.A2aException}.
 */
public final class TaskEvents implements AutoCloseable, Iterable<StreamResponse> {

    private final InputStream body;
    private final URI uri;
    private final Http http;
    private final Function<JsonNode, StreamResponse> decode;
    private final ArrayDeque<SseEvent> pending = new ArrayDeque<>();
    private final SseParser parser = new SseParser(pending::add);
    private final byte[] buffer = new byte[8192];
    private volatile boolean closed;
    private boolean ended;

    TaskEvents(InputStream body, URI uri, Http http, Function<JsonNode, StreamResponse> decode) {
        this.body = body;
        this.uri = uri;
        this.http = http;
        this.decode = decode;
    }

    /**
     * The next event, waiting for it; null once the stream ended (after the event that ended or
     * paused the task, or when the agent closed it).
     *
     * @throws dev.bellows.a2a.A2aException an A2A error the agent sent in the stream
     * @throws A2aClientException            the connection failed, or carried something that is not A2A
     */
    public StreamResponse next() {
        while (!ended) {
            SseEvent event = pending.poll();
            if (event != null) {
                if (event.data().isBlank()) {
                    continue;   // a keep-alive
                }
                StreamResponse response = parse(event.data());
                if (isLast(response)) {
                    end();
                }
                return response;
            }
            int n;
            try {
                n = body.read(buffer);
            } catch (IOException e) {
                end();
                if (closed) {
                    throw new A2aClientException(A2aClientException.Kind.CANCELLED, 0, "the stream from "
                            + Http.display(uri) + " was closed", e);
                }
                throw Http.failure(e, uri);
            }
            if (n < 0) {
                end();
                return null;
            }
            parser.feed(buffer, 0, n);
        }
        return null;
    }

    private StreamResponse parse(String data) {
        JsonNode json;
        try {
            json = Http.JSON.readTree(data);
        } catch (JacksonException e) {
            end();
            throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, Http.display(uri)
                    + " sent an event that is not JSON", null);
        }
        java.util.Optional<RuntimeException> error = http.errorIn(json, uri);
        if (error.isPresent()) {
            end();
            throw error.get();
        }
        StreamResponse response;
        try {
            response = decode.apply(json);
        } catch (IllegalArgumentException e) {
            response = null;
        }
        if (response == null || count(response) != 1) {
            end();
            throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, Http.display(uri)
                    + " sent an event that is not an A2A stream response (one of task, message, statusUpdate,"
                    + " artifactUpdate)", null);
        }
        return response;
    }

    private static int count(StreamResponse r) {
        return (r.task() != null ? 1 : 0) + (r.message() != null ? 1 : 0) + (r.statusUpdate() != null ? 1 : 0)
                + (r.artifactUpdate() != null ? 1 : 0);
    }

    /**
     * A direct message, a status update that ends or pauses the task, or a snapshot of an ended
     * task. (A paused snapshot is not: the first event of a message that answers a paused task
     * may be its snapshot as it stood.)
     */
    static boolean isLast(StreamResponse response) {
        if (response.message() != null) {
            return true;
        }
        if (response.statusUpdate() != null && response.statusUpdate().status() != null) {
            TaskState state = response.statusUpdate().status().state();
            return state != null && (state.terminal() || state.interrupted());
        }
        return response.task() != null && response.task().status() != null && response.task().status().state() != null
                && response.task().status().state().terminal();
    }

    private void end() {
        ended = true;
        close();
    }

    /** Ends the connection; the remote task goes on (cancel it with {@link A2aClient#cancelTask}). Idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            body.close();
        } catch (IOException e) {
            // closing a connection we no longer read
        }
    }

    /** The remaining events, each read when the iterator is asked for it. */
    @Override
    public Iterator<StreamResponse> iterator() {
        return new Iterator<>() {
            private StreamResponse next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    next = TaskEvents.this.next();
                }
                return next != null;
            }

            @Override
            public StreamResponse next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                StreamResponse result = next;
                next = null;
                return result;
            }
        };
    }
}
