package dev.bellows.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * The line-at-a-time parser Bellows had before it parsed on bytes, kept as the reference its
 * replacement must agree with. An incremental Server-Sent Events parser, following the WHATWG HTML standard's "Server-sent
 * events" section ("Parsing an event stream" and "Interpreting an event stream").
 *
 * <p>Bytes may arrive split anywhere: inside a UTF-8 multi-byte character, between the CR
 * and the LF of a CRLF, inside a field name. The parser splits lines on bytes (CR and LF
 * never occur inside a UTF-8 sequence) and decodes each complete line, so malformed UTF-8
 * becomes U+FFFD exactly as decoding the whole stream would. Each input byte is looked at
 * once: parsing is linear in the input, and no regular expressions are used.
 *
 * <p>Not thread-safe: one parser per stream, fed by one thread.
 */
final class LineSseParser {

    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private final Consumer<SseEvent> sink;

    private byte[] line = new byte[256];
    private int lineLength;
    private boolean lastWasCr;
    private boolean firstLine = true;

    private final StringBuilder data = new StringBuilder();
    private String eventType = "";
    private String lastEventId = "";
    private long retryMillis = -1;

    /** @param sink receives every dispatched event, on the thread that calls {@link #feed} */
    LineSseParser(Consumer<SseEvent> sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Parses more bytes of the stream; complete events go to the sink before this returns. */
    public void feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        int end = offset + length;
        int start = offset;           // start of the bytes not yet copied into 'line'
        for (int i = offset; i < end; i++) {
            byte b = bytes[i];
            if (b == LF) {
                if (lastWasCr) {      // the LF of a CRLF whose CR ended the line already
                    lastWasCr = false;
                    start = i + 1;
                    continue;
                }
                append(bytes, start, i);
                endOfLine();
                start = i + 1;
            } else if (b == CR) {
                append(bytes, start, i);
                endOfLine();
                lastWasCr = true;
                start = i + 1;
            } else {
                lastWasCr = false;
            }
        }
        append(bytes, start, end);
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
        data.setLength(0);
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
        return !data.isEmpty() || lineLength > 0;
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

    private void endOfLine() {
        int from = 0;
        if (firstLine) {
            firstLine = false;
            // The UTF-8 decode of the standard strips one byte order mark at the very start.
            if (lineLength >= 3 && (line[0] & 0xFF) == 0xEF && (line[1] & 0xFF) == 0xBB && (line[2] & 0xFF) == 0xBF) {
                from = 3;
            }
        }
        int length = lineLength - from;
        lineLength = 0;
        if (length == 0) {
            dispatch();
            return;
        }
        if (line[from] == ':') {
            return;                   // a comment
        }
        String text = new String(line, from, length, StandardCharsets.UTF_8);
        int colon = text.indexOf(':');
        String field;
        String value;
        if (colon < 0) {
            field = text;
            value = "";
        } else {
            field = text.substring(0, colon);
            int valueStart = colon + 1;
            if (valueStart < text.length() && text.charAt(valueStart) == ' ') {
                valueStart++;
            }
            value = text.substring(valueStart);
        }
        process(field, value);
    }

    private void process(String field, String value) {
        switch (field) {
            case "event" -> eventType = value;
            case "data" -> data.append(value).append('\n');
            case "id" -> {
                if (value.indexOf('\0') < 0) {
                    lastEventId = value;
                }
            }
            case "retry" -> {
                if (!value.isEmpty() && allAsciiDigits(value)) {
                    retryMillis = parseCapped(value);
                }
            }
            default -> {
                // unknown fields are ignored
            }
        }
    }

    private void dispatch() {
        if (data.isEmpty()) {
            eventType = "";
            return;
        }
        data.setLength(data.length() - 1);   // the last data line's LF
        SseEvent event = new SseEvent(eventType.isEmpty() ? "message" : eventType, data.toString(),
                lastEventId.isEmpty() ? null : lastEventId);
        data.setLength(0);
        eventType = "";
        sink.accept(event);
    }

    private static boolean allAsciiDigits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static long parseCapped(String digits) {
        long result = 0;
        for (int i = 0; i < digits.length(); i++) {
            result = result * 10 + (digits.charAt(i) - '0');
            if (result > Integer.MAX_VALUE) {
                return Integer.MAX_VALUE;
            }
        }
        return result;
    }
}
