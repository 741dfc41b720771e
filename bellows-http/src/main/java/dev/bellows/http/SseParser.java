package dev.bellows.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * An incremental Server-Sent Events parser, following the WHATWG HTML standard's "Server-sent
 * events" section ("Parsing an event stream" and "Interpreting an event stream").
 *
 * <p>Bytes may arrive split anywhere: inside a UTF-8 multi-byte character, between the CR
 * and the LF of a CRLF, inside a field name. The parser splits lines on bytes (CR and LF
 * never occur inside a UTF-8 sequence) and decodes each complete line, so malformed UTF-8
 * becomes U+FFFD exactly as decoding the whole stream would. Lines are taken apart on bytes
 * too: an event allocates its data's bytes and little else (its type and id are decoded once
 * per distinct value), and the data is decoded only if the consumer asks for it as text.
 * Each input byte is looked at a bounded number of times: parsing is linear in the input, and
 * no regular expressions are used.
 *
 * <p>Not thread-safe: one parser per stream, fed by one thread.
 */
public final class SseParser {

    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private final Consumer<SseEvent> sink;

    private byte[] line = new byte[256];
    private int lineLength;
    private boolean lastWasCr;
    private boolean firstLine = true;

    private static final byte[] DATA = {'d', 'a', 't', 'a'};
    private static final byte[] EVENT = {'e', 'v', 'e', 'n', 't'};
    private static final byte[] ID = {'i', 'd'};
    private static final byte[] RETRY = {'r', 'e', 't', 'r', 'y'};

    /** The pending event's data lines, each followed by LF. */
    private byte[] data = new byte[256];
    private int dataLength;
    private final RecentTexts eventTypes = new RecentTexts();
    private final RecentTexts ids = new RecentTexts();
    private String eventType = "";
    private String lastEventId = "";
    private long retryMillis = -1;

    /** @param sink receives every dispatched event, on the thread that calls {@link #feed} */
    public SseParser(Consumer<SseEvent> sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Parses more bytes of the stream; complete events go to the sink before this returns. */
    public void feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        int end = offset + length;
        int i = offset;
        if (lastWasCr && i < end) {
            lastWasCr = false;
            if (bytes[i] == LF) {
                i++;                  // the LF of a CRLF whose CR ended the last feed's line
            }
        }
        while (i < end) {
            int lineEnd = i;
            while (lineEnd < end && bytes[lineEnd] != LF && bytes[lineEnd] != CR) {
                lineEnd++;
            }
            if (lineEnd == end) {
                append(bytes, i, end);  // the line goes on in the next feed
                return;
            }
            if (lineLength == 0) {
                endOfLine(bytes, i, lineEnd);   // the whole line is at hand: read in place
            } else {
                append(bytes, i, lineEnd);
                int carried = lineLength;
                lineLength = 0;
                endOfLine(line, 0, carried);
            }
            if (bytes[lineEnd] == CR) {
                if (lineEnd + 1 == end) {
                    lastWasCr = true;   // its LF, if any, comes with the next feed
                } else if (bytes[lineEnd + 1] == LF) {
                    lineEnd++;
                }
            }
            i = lineEnd + 1;
        }
    }

    /**
     * The end of the stream. Per the standard, a pending event that was not terminated by a
     * blank line is discarded, as is an unterminated last line. The parser can be fed again
     * afterwards, as a new stream (the last event ID is kept, as for a reconnection).
     */
    public void finish() {
        lineLength = 0;
        lastWasCr = false;
        firstLine = true;
        dataLength = 0;
        eventType = "";
    }

    /** The reconnection time the server last asked for with a {@code retry:} field, if any. */
    public OptionalLong retryMillis() {
        return retryMillis < 0 ? OptionalLong.empty() : OptionalLong.of(retryMillis);
    }

    /**
     * The last event ID the stream set with an {@code id:} field (kept across {@link #finish()}),
     * even one set by an event without data, which is never dispatched: what a client sends as
     * {@code Last-Event-ID} when it reconnects.
     */
    public java.util.Optional<String> lastEventId() {
        return lastEventId.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(lastEventId);
    }

    /** Whether data of an event has been received that no blank line has dispatched yet. */
    public boolean hasPendingEvent() {
        return dataLength > 0 || lineLength > 0;
    }

    private void append(byte[] bytes, int from, int to) {
        int n = to - from;
        if (n <= 0) {
            return;
        }
        if (lineLength + n > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + n));
        }
        System.arraycopy(bytes, from, line, lineLength, n);
        lineLength += n;
    }

    /** A complete line, {@code line[start, end)} without its line break (the array is the input's or the carried line's). */
    private void endOfLine(byte[] line, int start, int end) {
        int from = start;
        if (firstLine) {
            firstLine = false;
            // The UTF-8 decode of the standard strips one byte order mark at the very start.
            if (end - start >= 3 && (line[start] & 0xFF) == 0xEF && (line[start + 1] & 0xFF) == 0xBB
                    && (line[start + 2] & 0xFF) == 0xBF) {
                from = start + 3;
            }
        }
        if (from == end) {
            dispatch();
            return;
        }
        if (line[from] == ':') {
            return;                   // a comment
        }
        // The line is taken apart on bytes: ':' and ' ' are ASCII, never inside a UTF-8
        // sequence, and a decoder never folds an ASCII byte into a malformed one, so this
        // splits where splitting the decoded text would.
        int colon = from;
        while (colon < end && line[colon] != ':') {
            colon++;
        }
        int valueStart = colon;
        if (colon < end) {
            valueStart = colon + 1;
            if (valueStart < end && line[valueStart] == ' ') {
                valueStart++;
            }
        }
        int nameLength = colon - from;
        if (is(DATA, line, from, nameLength)) {
            appendData(line, valueStart, end);
        } else if (is(EVENT, line, from, nameLength)) {
            eventType = eventTypes.text(line, valueStart, end);
        } else if (is(ID, line, from, nameLength)) {
            if (!contains(line, valueStart, end, (byte) 0)) {
                lastEventId = ids.text(line, valueStart, end);
            }
        } else if (is(RETRY, line, from, nameLength)) {
            if (valueStart < end && allAsciiDigits(line, valueStart, end)) {
                retryMillis = parseCapped(line, valueStart, end);
            }
        }
        // unknown fields are ignored
    }

    private static boolean is(byte[] name, byte[] line, int from, int length) {
        return length == name.length && Arrays.equals(line, from, from + length, name, 0, length);
    }

    private void appendData(byte[] line, int from, int to) {
        int n = to - from;
        if (dataLength + n + 1 > data.length) {
            data = Arrays.copyOf(data, Math.max(data.length * 2, dataLength + n + 1));
        }
        System.arraycopy(line, from, data, dataLength, n);
        dataLength += n;
        data[dataLength++] = LF;
    }

    private void dispatch() {
        if (dataLength == 0) {
            eventType = "";
            return;
        }
        // Exactly the data, without the last data line's LF: the event owns this copy.
        SseEvent event = new SseEvent(eventType.isEmpty() ? "message" : eventType, Arrays.copyOf(data, dataLength - 1),
                lastEventId.isEmpty() ? null : lastEventId);
        dataLength = 0;
        eventType = "";
        sink.accept(event);
    }

    private static boolean contains(byte[] bytes, int from, int to, byte wanted) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == wanted) {
                return true;
            }
        }
        return false;
    }

    private static boolean allAsciiDigits(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] < '0' || bytes[i] > '9') {
                return false;
            }
        }
        return true;
    }

    private static long parseCapped(byte[] digits, int from, int to) {
        long result = 0;
        for (int i = from; i < to; i++) {
            result = result * 10 + (digits[i] - '0');
            if (result > Integer.MAX_VALUE) {
                return Integer.MAX_VALUE;
            }
        }
        return result;
    }

    /**
     * The strings a stream repeats ({@code event:} types, ids), decoded once: a value whose
     * bytes equal one seen lately comes back as the same {@code String}.
     */
    private static final class RecentTexts {
        private static final int SIZE = 8;
        private final byte[][] bytes = new byte[SIZE][];
        private final String[] texts = new String[SIZE];
        private int next;

        String text(byte[] source, int from, int to) {
            if (from == to) {
                return "";
            }
            for (int i = 0; i < SIZE; i++) {
                byte[] known = bytes[i];
                if (known != null && Arrays.equals(known, 0, known.length, source, from, to)) {
                    return texts[i];
                }
            }
            byte[] copy = Arrays.copyOfRange(source, from, to);
            String text = new String(copy, StandardCharsets.UTF_8);
            bytes[next] = copy;
            texts[next] = text;
            next = (next + 1) % SIZE;
            return text;
        }
    }
}
