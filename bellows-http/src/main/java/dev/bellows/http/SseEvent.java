package dev.bellows.http;

import java.util.Objects;

/**
 * One event of a Server-Sent Events stream, as the WHATWG standard dispatches it.
 *
 * @param event the event type: the last {@code event:} field, or {@code message} when there was none
 * @param data  the {@code data:} lines joined with {@code \n} (never empty: events without data are not dispatched)
 * @param id    the last event ID in force when the event was dispatched, or null when none was set
 */
public record SseEvent(String event, String data, String id) {

    public SseEvent {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(data, "data");
    }
}
