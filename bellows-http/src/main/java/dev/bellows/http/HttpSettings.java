package dev.bellows.http;

import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Time limits and TLS trust of an {@link SseClient}.
 *
 * @param connectTimeout how long establishing the TCP (and TLS) connection may take
 * @param idleTimeout    how long to wait for the response headers, and then for each next
 *                       byte of the body (the CLI's {@code --timeout-seconds})
 * @param sslContext     the TLS context of {@code https://} connections: whom the client trusts
 *                       (and which client certificate it shows, if any). By default the JDK's
 *                       ({@link SSLContext#getDefault()}: the JDK's trusted CAs, or those of
 *                       {@code javax.net.ssl.trustStore}); give another to trust a private CA,
 *                       e.g. that of a company proxy or of a self-hosted model server. Used as
 *                       given, never changed.
 */
public record HttpSettings(Duration connectTimeout, Duration idleTimeout, SSLContext sslContext) {

    public HttpSettings {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(sslContext, "sslContext");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive, got " + connectTimeout);
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
        }
    }

    /** These time limits, with the JDK's default TLS context. */
    public HttpSettings(Duration connectTimeout, Duration idleTimeout) {
        this(connectTimeout, idleTimeout, jdkDefault());
    }

    /** 10 s to connect, 120 s for the next byte, the JDK's default TLS context. */
    public static HttpSettings defaults() {
        return new HttpSettings(Duration.ofSeconds(10), Duration.ofSeconds(120));
    }

    /** These settings with another idle timeout. */
    public HttpSettings withIdleTimeout(Duration idleTimeout) {
        return new HttpSettings(connectTimeout, idleTimeout, sslContext);
    }

    /** These settings with another connect timeout. */
    public HttpSettings withConnectTimeout(Duration connectTimeout) {
        return new HttpSettings(connectTimeout, idleTimeout, sslContext);
    }

    /** These settings with another TLS context (see {@link #sslContext()}). */
    public HttpSettings withSslContext(SSLContext sslContext) {
        return new HttpSettings(connectTimeout, idleTimeout, sslContext);
    }

    /** The time limits, and whether the TLS context is the JDK's default. */
    @Override
    public String toString() {
        return "HttpSettings[connectTimeout=" + connectTimeout + ", idleTimeout=" + idleTimeout
                + ", sslContext=" + (sslContext == jdkDefault() ? "default" : "custom") + "]";
    }

    private static SSLContext jdkDefault() {
        try {
            // the same one the JDK's HttpClient takes when given none: made once, then shared
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no default TLS context", e);
        }
    }
}
