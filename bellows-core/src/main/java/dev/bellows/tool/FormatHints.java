package dev.bellows.tool;

import java.util.Map;

/** What a valid value of each asserted {@code format} looks like, for the model to copy. */
final class FormatHints {

    private static final Map<String, String> HINTS = Map.of(
            "date-time", " (RFC 3339, such as \"2025-01-31T09:30:00Z\")",
            "date", " (such as \"2025-01-31\")",
            "time", " (such as \"09:30:00Z\")",
            "duration", " (ISO 8601, such as \"P1DT2H\")",
            "email", " (such as \"name@example.com\")",
            "uuid", " (such as \"123e4567-e89b-12d3-a456-426614174000\")",
            "uri", " (absolute, with a scheme, such as \"https://example.com/page\")",
            "ipv4", " (such as \"192.0.2.1\")",
            "ipv6", " (such as \"2001:db8::1\")");

    private FormatHints() {
    }

    static String of(String format) {
        return HINTS.getOrDefault(format, "");
    }
}
