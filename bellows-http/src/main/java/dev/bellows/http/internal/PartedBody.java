package dev.bellows.http.internal;

import dev.bellows.http.internal.JsonBody;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Internal to the Bellows providers, not for users (it may change in any release): a request
 * body made of the bytes written for this request, with cached encodings between them that
 * are never encoded again. Written once, front to back, by one thread (through a
 * {@link JsonBody}); then finished and only read. It is sent as one array (see
 * {@link #publisher()}).
 */
public final class PartedBody {

    private final Buffer buffer;
    private byte[][] cached = new byte[2][];
    /** Where in the buffer each cached part goes. */
    private int[] cuts = new int[2];
    private int cachedCount;
    private int length = -1;
    /** The whole body in one array, once {@link #publisher()} made it (a retry sends it again). */
    private byte[] joined;

    /** @param sizeHint about the bytes that will be written, so the buffer is rarely grown */
    PartedBody(int sizeHint) {
        buffer = new Buffer(sizeHint);
    }

    /** Where a JSON generator writes this request's bytes (flush it before the next write here). */
    OutputStream out() {
        return buffer;
    }

    /** Appends the bytes, copied. */
    void write(byte[] bytes) {
        buffer.write(bytes, 0, bytes.length);
    }

    /** Appends one byte. */
    void write(int b) {
        buffer.write(b);
    }

    /** Appends the number in ASCII digits. */
    void writeInt(int value) {
        if (value >= 0 && value < 10) {
            buffer.write('0' + value);
        } else {
            write(Integer.toString(value).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** A cached encoding, sent in its place in the body; the caller must never change the array. */
    void cached(byte[] bytes) {
        if (cachedCount == cached.length) {
            cached = Arrays.copyOf(cached, 2 * cachedCount);
            cuts = Arrays.copyOf(cuts, 2 * cachedCount);
        }
        cuts[cachedCount] = buffer.length;
        cached[cachedCount++] = bytes;
    }

    /** Ends writing: only now is the buffer's array final (it may have grown while writing). */
    PartedBody finish() {
        length = buffer.length;
        for (int i = 0; i < cachedCount; i++) {
            length += cached[i].length;
        }
        return this;
    }

    /** The body's length in bytes (after {@link #finish()}). */
    public int length() {
        return length;
    }

    /** The parts in order, empty ones left out: each calls {@code part} with its array and range. */
    private void forEachPart(Part part) {
        int from = 0;
        for (int i = 0; i < cachedCount; i++) {
            if (cuts[i] > from) {
                part.accept(buffer.bytes, from, cuts[i] - from);
            }
            if (cached[i].length > 0) {
                part.accept(cached[i], 0, cached[i].length);
            }
            from = cuts[i];
        }
        if (buffer.length > from) {
            part.accept(buffer.bytes, from, buffer.length - from);
        }
    }

    @FunctionalInterface
    private interface Part {
        void accept(byte[] array, int offset, int count);
    }

    /**
     * The body for the HTTP client, with the length known up front, as one array: the parts
     * copied behind each other. Not a concatenation of the parts' publishers: the JDK client
     * writes every buffer a body publisher hands over with a socket write of its own, so a body
     * of three parts (a request with a cached system message) went out in three writes besides
     * the headers', three TCP segments on a connection without delay, each one a system call
     * here and a wake-up and a read at the server. Copying the cached parts costs a few KiB
     * allocated and copied per request, less than the writes it saves (BENCHMARKS.md, "The
     * loop under load").
     */
    public HttpRequest.BodyPublisher publisher() {
        if (cachedCount == 0) {
            return HttpRequest.BodyPublishers.ofByteArray(buffer.bytes, 0, buffer.length);
        }
        if (joined == null) {
            byte[] whole = new byte[length];
            int[] at = {0};
            forEachPart((array, offset, size) -> {
                System.arraycopy(array, offset, whole, at[0], size);
                at[0] += size;
            });
            joined = whole;
        }
        return HttpRequest.BodyPublishers.ofByteArray(joined);
    }

    /** The whole body's bytes, copied (for tests and benchmarks). */
    public byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(length, 0));
        forEachPart(out::write);
        return out.toByteArray();
    }

    /** The cached parts this body sends, in order (for tests: the same arrays, not copies). */
    public byte[][] cachedParts() {
        return Arrays.copyOf(cached, cachedCount);
    }

    /** The whole body as text (for tests). */
    public String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** A growable byte array whose storage is handed over as it is (no copy at the end). */
    private static final class Buffer extends OutputStream {
        byte[] bytes;
        int length;

        Buffer(int size) {
            bytes = new byte[Math.max(size, 64)];
        }

        private void ensure(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[length++] = (byte) b;
        }

        @Override
        public void write(byte[] source, int offset, int count) {
            ensure(count);
            System.arraycopy(source, offset, bytes, length, count);
            length += count;
        }
    }
}
