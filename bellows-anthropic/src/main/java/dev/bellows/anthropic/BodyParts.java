package dev.bellows.anthropic;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A request body: the bytes written for this request, with cached encodings between them that
 * are sent as they are, never copied in. Written once, front to back, by one thread; then
 * {@link #finish() finished} and only read.
 */
final class BodyParts {

    /** Ends in the buffer ({@code Integer}) and cached arrays, in order, while writing. */
    private final List<Object> pieces = new ArrayList<>(6);
    private final Buffer buffer;
    private final List<byte[]> arrays = new ArrayList<>(6);
    private final List<int[]> ranges = new ArrayList<>(6);
    private int length;

    BodyParts(int sizeHint) {
        buffer = new Buffer(sizeHint);
    }

    /** Where a JSON generator writes this request's bytes. */
    OutputStream out() {
        return buffer;
    }

    void write(byte[] bytes) {
        buffer.write(bytes, 0, bytes.length);
    }

    void write(int b) {
        buffer.write(b);
    }

    void writeInt(int value) {
        if (value >= 0 && value < 10) {
            buffer.write('0' + value);
        } else {
            write(Integer.toString(value).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** A cached encoding, sent in its place in the body. */
    void cached(byte[] bytes) {
        pieces.add(buffer.length);
        pieces.add(bytes);
    }

    /** Ends writing: only now is the buffer's array final (it may have grown while writing). */
    BodyParts finish() {
        int from = 0;
        for (Object piece : pieces) {
            if (piece instanceof Integer end) {
                add(buffer.bytes, from, end);
                from = end;
            } else {
                byte[] cached = (byte[]) piece;
                add(cached, 0, cached.length);
            }
        }
        add(buffer.bytes, from, buffer.length);
        pieces.clear();
        return this;
    }

    private void add(byte[] array, int from, int to) {
        if (to > from) {
            arrays.add(array);
            ranges.add(new int[] {from, to});
            length += to - from;
        }
    }

    /** The body's length in bytes. */
    int length() {
        return length;
    }

    /** The body for the HTTP client: its parts in order, with the length known up front. */
    HttpRequest.BodyPublisher publisher() {
        if (arrays.size() == 1) {
            return HttpRequest.BodyPublishers.ofByteArray(arrays.get(0), ranges.get(0)[0], length);
        }
        HttpRequest.BodyPublisher[] parts = new HttpRequest.BodyPublisher[arrays.size()];
        for (int i = 0; i < parts.length; i++) {
            int[] range = ranges.get(i);
            parts[i] = HttpRequest.BodyPublishers.ofByteArray(arrays.get(i), range[0], range[1] - range[0]);
        }
        return HttpRequest.BodyPublishers.concat(parts);
    }

    /** The whole body's bytes, copied (for tests and benchmarks). */
    byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length);
        for (int i = 0; i < arrays.size(); i++) {
            int[] range = ranges.get(i);
            out.write(arrays.get(i), range[0], range[1] - range[0]);
        }
        return out.toByteArray();
    }

    /** The whole body as text (for tests). */
    String text() {
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
