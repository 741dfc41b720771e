package dev.bellows.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Time limits of an {@link SseClient}.
 *
 * @param connectTimeout how long establishing the TCP (and TLS) connection may take
 * @param idleTimeout    how long to wait for the response headers, and then for each next
 *                       byte of the body (the CLI's {@code --timeout-seconds})
 */
public record HttpSettings(Duration connectTimeout, Duration idleTimeout) {

    public HttpSettings {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive, got " + connectTimeout);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
        }
    }

    /** 10 s to connect, 120 s for the next byte. */
    public static HttpSettings defaults() {
        return new HttpSettings(Duration.ofSeconds(10), Duration.ofSeconds(120));
    }

    /** These settings with another idle timeout. */
    public HttpSettings withIdleTimeout(Duration idleTimeout) {
        return new HttpSettings(connectTimeout, idleTimeout);
    }

    /** These settings with another connect timeout. */
    public HttpSettings withConnectTimeout(Duration connectTimeout) {
        return new HttpSettings(connectTimeout, idleTimeout);
    }
}
