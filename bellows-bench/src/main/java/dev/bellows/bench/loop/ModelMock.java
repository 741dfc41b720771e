package dev.bellows.bench.loop;

import java.io.IOException;

/**
 * A mock model server of the loop harnesses, on 127.0.0.1: {@link LeanMock} (a hand-written
 * HTTP/1.1 server, chunked) or {@link JdkServerMock} (the JDK's own server, with a
 * {@code Content-Length} or chunked), both answering with {@link MockAnswers}. Its counters
 * are the harness's view of what the clients did on the wire.
 */
interface ModelMock extends AutoCloseable {

    /** The OpenAI-compatible base URL, such as {@code http://127.0.0.1:PORT/v1}. */
    String baseUrl();

    /** The server and framing, for the report. */
    String name();

    /** Connections that made a chat request so far. */
    long connections();

    /** Chat requests so far. */
    long requests();

    /** Request body bytes so far. */
    long requestBodyBytes();

    /**
     * Before a contestant's batch: the connections that make their first request from now on
     * are that contestant's (contestants take turns, so they are).
     */
    default void serving(String contestant) {
    }

    /** The connections the contestant's client keeps open now, or -1 when this mock cannot tell. */
    default int openConnections(String contestant) {
        return -1;
    }

    @Override
    void close() throws IOException;
}
