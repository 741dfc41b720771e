package dev.bellows.http;

import dev.bellows.http.internal.EventBytes;
import tools.jackson.core.async.ByteArrayFeeder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One event of a Server-Sent Events stream, as the WHATWG standard dispatches it.
 *
 * <p>An event from {@link SseParser} keeps its data as the UTF-8 bytes that arrived and
 * decodes them to a {@code String} only when {@link #data()} is first asked for: a JSON
 * reader can take the bytes as they are ({@link #feedData}), without a string in between.
 * Immutable; safe to share between threads.
 */
public final class SseEvent {

    static {
        EventBytes.install(SseEvent::bytes);
    }

    private final String event;
    private final String id;
    // The event is made from one of the two (the other is null); the other form is made from
    // it on first use. Those caches are a benign race: every thread computes the same value
    // from a final field.
    /** The data's UTF-8 bytes as the parser copied them; never changed, never handed out. */
    private final byte[] sourceBytes;
    private final String sourceText;
    private String decoded;
    private byte[] encoded;

    /**
     * @param event the event type: the last {@code event:} field, or {@code message} when there was none
     * @param data  the {@code data:} lines joined with {@code \n}
     * @param id    the last event ID in force when the event was dispatched, or null when none was set
     */
    public SseEvent(String event, String data, String id) {
        this.event = Objects.requireNonNull(event, "event");
        this.sourceText = Objects.requireNonNull(data, "data");
        this.sourceBytes = null;
        this.id = id;
    }

    /** An event over bytes the parser copied for it alone (so they are never changed). */
    SseEvent(String event, byte[] utf8, String id) {
        this.event = event;
        this.sourceBytes = utf8;
        this.sourceText = null;
        this.id = id;
    }

    /** The event type: the last {@code event:} field, or {@code message} when there was none. */
    public String event() {
        return event;
    }

    /** The {@code data:} lines joined with {@code \n} (never null; empty for one empty data line). */
    public String data() {
        if (sourceText != null) {
            return sourceText;
        }
        String text = decoded;
        if (text == null) {
            // Malformed UTF-8 becomes U+FFFD, as the standard's decoding of the stream does.
            text = new String(sourceBytes, StandardCharsets.UTF_8);
            decoded = text;
        }
        return text;
    }

    /** The last event ID in force when the event was dispatched, or null when none was set. */
    public String id() {
        return id;
    }

    /** The data's UTF-8 bytes, for this module's readers ({@link EventBytes}): never to be changed or handed out. */
    byte[] bytes() {
        if (sourceBytes != null) {
            return sourceBytes;
        }
        byte[] bytes = encoded;
        if (bytes == null) {
            bytes = sourceText.getBytes(StandardCharsets.UTF_8);
            encoded = bytes;
        }
        return bytes;
    }

    /** The length of the data in UTF-8 bytes. */
    public int dataLength() {
        return bytes().length;
    }

    /** The data's byte at {@code index} (from 0, below {@link #dataLength()}). */
    public byte dataByte(int index) {
        return bytes()[index];
    }

    /**
     * Hands the data's UTF-8 bytes to a non-blocking JSON parser's feeder: the parser reads
     * them in place. The bytes are never changed, by this event or the parser.
     */
    public void feedData(ByteArrayFeeder feeder) throws IOException {
        byte[] bytes = bytes();
        feeder.feedInput(bytes, 0, bytes.length);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SseEvent that && event.equals(that.event) && data().equals(that.data())
                && Objects.equals(id, that.id);
    }

    @Override
    public int hashCode() {
        return Objects.hash(event, data(), id);
    }

    @Override
    public String toString() {
        return "SseEvent[event=" + event + ", data=" + data() + ", id=" + id + "]";
    }
}
