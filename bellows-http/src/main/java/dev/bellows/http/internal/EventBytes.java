package dev.bellows.http.internal;

import dev.bellows.http.SseEvent;
import java.util.function.Function;

/**
 * The way of the readers in this package to an {@link SseEvent}'s data bytes, which the event
 * hands to nobody else (the JDK's "shared secrets" pattern): the event installs its accessor
 * when its class is initialised, which it is before any event can reach a reader.
 */
public final class EventBytes {

    private static volatile Function<SseEvent, byte[]> access;

    private EventBytes() {
    }

    /** Called once, by {@link SseEvent}'s class initialiser. */
    public static void install(Function<SseEvent, byte[]> accessor) {
        if (access != null) {
            throw new IllegalStateException("installed already");
        }
        access = accessor;
    }

    /** The data's UTF-8 bytes as the event holds them: never to be changed or handed out. */
    static byte[] of(SseEvent event) {
        return access.apply(event);
    }
}
