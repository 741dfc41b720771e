package dev.bellows.a2a;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** ISO 8601 UTC timestamps with milliseconds, as the specification asks ({@code 2025-10-28T10:30:00.000Z}). */
final class Timestamps {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private Timestamps() {
    }

    static String now() {
        return format(Instant.now());
    }

    static String format(Instant instant) {
        return FORMAT.format(instant);
    }
}
