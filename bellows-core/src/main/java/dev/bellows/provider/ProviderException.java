package dev.bellows.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A model call failed. The {@link #kind()} says whether trying again may help, as the CLI
 * spec's "Provider failures" section defines: 408, 409, 429, 5xx, connection failures,
 * time-outs and streams that break off are retried; other 4xx answers are not.
 *
 * <p>The message carries the provider's own error message from the response body where
 * there is one. It never contains an API key.
 */
public class ProviderException extends Exception {

    /** What went wrong, which decides whether a retry may help. */
    public enum Kind {
        /** HTTP 429. */
        RATE_LIMITED(true),
        /** HTTP 408, 409 or 5xx. */
        SERVER_ERROR(true),
        /** The endpoint could not be reached, or the connection failed before an answer. */
        CONNECTION(true),
        /** No byte arrived within the idle timeout, or the connection took too long. */
        TIMEOUT(true),
        /** The answer broke off mid-stream: what was received of it must be discarded. */
        STREAM_BROKEN(true),
        /**
         * Any other 4xx answer, or a server whose TLS certificate is not trusted: the request
         * cannot succeed as it is (bad key, unknown model, missing trust, ...).
         */
        CLIENT_ERROR(false),
        /** The answer could not be understood (malformed SSE or JSON). */
        PROTOCOL(false),
        /** Cancelled by the caller. */
        CANCELLED(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private final Kind kind;
    private final Integer statusCode;
    private final Duration retryAfter;

    public ProviderException(Kind kind, String message) {
        this(kind, message, null, null, null);
    }

    public ProviderException(Kind kind, String message, Throwable cause) {
        this(kind, message, null, null, cause);
    }

    /**
     * @param statusCode the HTTP status, or null when there was none
     * @param retryAfter the server's {@code Retry-After}, or null
     */
    public ProviderException(Kind kind, String message, Integer statusCode, Duration retryAfter, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.statusCode = statusCode;
        this.retryAfter = retryAfter;
    }

    public Kind kind() {
        return kind;
    }

    public boolean retryable() {
        return kind.retryable();
    }

    public OptionalInt statusCode() {
        return statusCode == null ? OptionalInt.empty() : OptionalInt.of(statusCode);
    }

    /** How long the server asked us to wait before retrying, if it said. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
