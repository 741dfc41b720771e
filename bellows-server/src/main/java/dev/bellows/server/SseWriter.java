package dev.bellows.server;

import tools.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Server-Sent Events on a response body: each event one {@code data:} line, flushed at once; a
 * comment line ({@code :}) as a heartbeat, which every SSE client skips. A write that fails
 * means the client went away. Used by one thread at a time.
 */
final class SseWriter {

    private static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.US_ASCII);
    private final OutputStream out;
    private final Redactor redactor;
    private long lastWrite = System.nanoTime();

    SseWriter(OutputStream out, Redactor redactor) {
        this.out = out;
        this.redactor = redactor;
    }

    void data(JsonNode event) throws IOException {
        data(event.toString());
    }

    void data(String payload) throws IOException {
        // JSON holds no raw newline, so one data line carries the whole event
        write(("data: " + redactor.apply(payload) + "\n\n").getBytes(StandardCharsets.UTF_8));
    }

    void heartbeat() throws IOException {
        write(HEARTBEAT);
    }

    /** Nanoseconds since the last write. */
    long idleNanos() {
        return System.nanoTime() - lastWrite;
    }

    private void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        lastWrite = System.nanoTime();
    }
}
