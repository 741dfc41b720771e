package dev.bellows.http;

import dev.bellows.http.internal.ErrorBodies;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;

/** Turns HTTP statuses and I/O failures into classified, redacted {@link ProviderException}s. */
final class HttpFailures {

    private HttpFailures() {
    }

    /**
     * The spec's retry classes: 429 rate limited; 408, 409, 5xx server errors; other 4xx final.
     * 501 (Not Implemented) and 505 (HTTP Version Not Supported) are final too: the server says
     * it does not do this at all, so asking again cannot help.
     */
    static Kind kindOf(int status) {
        if (status == 429) {
            return Kind.RATE_LIMITED;
        }
        if (status == 501 || status == 505) {
            return Kind.CLIENT_ERROR;
        }
        if (status == 408 || status == 409 || status >= 500) {
            return Kind.SERVER_ERROR;
        }
        return Kind.CLIENT_ERROR;
    }

    static ProviderException forStatus(int status, URI uri, Map<String, List<String>> headers, String body,
                                       ApiKey key, Instant now) {
        // Redact before shortening: a key cut in half by the shortening would no longer match.
        String message = looksLikeHtml(headers, body) ? "" : ErrorBodies.message(redact(key, body));
        String text = "HTTP " + status + reason(status) + " from " + display(uri)
                + (message.isEmpty() ? "" : ": " + message) + hint(status, headers, body);
        Duration retryAfter = retryAfter(firstHeader(headers, "retry-after"), now);
        return new ProviderException(kindOf(status), redact(key, text), status, retryAfter, null);
    }

    /**
     * A 2xx answer to a streaming request that is not an event stream: a web page, a JSON
     * document... The base URL most likely points at something that is not the API. Final:
     * asking again gets the same page.
     */
    static ProviderException notAnEventStream(String contentType, URI uri, String body, ApiKey key) {
        String message = contentType.startsWith("application/json") ? ErrorBodies.message(redact(key, body)) : "";
        return new ProviderException(Kind.PROTOCOL, redact(key, "the server at " + display(uri) + " answered with "
                + contentType + ", not an event stream (text/event-stream)"
                + (message.isEmpty() ? "" : ": " + message)
                + "; check that the base URL is the API's (for OpenAI-compatible servers it usually ends in /v1)"),
                null);
    }

    private static String reason(int status) {
        return switch (status) {
            case 501 -> " (Not Implemented)";
            case 505 -> " (HTTP Version Not Supported)";
            default -> "";
        };
    }

    /** A page where an API answer was expected, or a server that does not do this at all: say what to check. */
    private static String hint(int status, Map<String, List<String>> headers, String body) {
        if (status == 501) {
            return "; the server does not implement this request: check that the base URL is the API's";
        }
        if (looksLikeHtml(headers, body)) {
            return "; it answered with a web page (text/html), not the API: check the base URL";
        }
        return "";
    }

    private static boolean looksLikeHtml(Map<String, List<String>> headers, String body) {
        String type = firstHeader(headers, "content-type");
        if (type != null) {
            return type.toLowerCase(java.util.Locale.ROOT).startsWith("text/html");
        }
        String start = body == null ? "" : body.stripLeading().toLowerCase(java.util.Locale.ROOT);
        return start.startsWith("<!doctype html") || start.startsWith("<html");
    }

    /** A failure before the status line arrived. */
    static ProviderException beforeResponse(Throwable failure, URI uri, HttpSettings settings, ApiKey key) {
        if (failure instanceof HttpConnectTimeoutException) {
            // The JDK reports the request's own timeout (our idle timeout) this way too when it
            // runs out while connecting: the limit that was hit is the shorter of the two.
            Duration limit = settings.connectTimeout().compareTo(settings.idleTimeout()) <= 0
                    ? settings.connectTimeout() : settings.idleTimeout();
            return new ProviderException(Kind.TIMEOUT, redact(key, "timed out connecting to " + display(uri)
                    + " after " + seconds(limit)), null);
        }
        if (failure instanceof HttpTimeoutException) {
            return new ProviderException(Kind.TIMEOUT, redact(key, "no response from " + display(uri)
                    + " within " + seconds(settings.idleTimeout())), null);
        }
        if (untrustedCertificate(failure)) {
            // Not a connection that may work next time: the same certificate comes back, so the
            // failure is the caller's to mend (a trust store, HttpSettings.sslContext), not retried.
            return new ProviderException(Kind.CLIENT_ERROR, redact(key, "cannot reach " + display(uri) + ": "
                    + describe(failure, uri) + " (its TLS certificate is not trusted here)"), null);
        }
        return new ProviderException(Kind.CONNECTION, redact(key, "cannot reach " + display(uri) + ": "
                + describe(failure, uri)), null);
    }

    /** Whether the TLS handshake failed because the server's certificate could not be trusted. */
    private static boolean untrustedCertificate(Throwable failure) {
        boolean handshake = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            handshake |= t instanceof javax.net.ssl.SSLHandshakeException;
            if (handshake && (t instanceof java.security.cert.CertificateException
                    || t instanceof java.security.cert.CertPathBuilderException
                    || t instanceof java.security.cert.CertPathValidatorException)) {
                return true;
            }
        }
        return false;
    }

    static String display(URI uri) {
        return SafeUris.display(uri);
    }

    /** The most telling message in a cause chain (JDK HTTP client exceptions often have none). */
    static String describe(Throwable failure, URI uri) {
        String best = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "unknown host " + uri.getHost();
            }
            if (t instanceof ConnectException && t.getMessage() != null) {
                return t.getMessage();
            }
            if (best == null && t.getMessage() != null && !t.getMessage().isBlank()) {
                best = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        if (best != null) {
            return best;
        }
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof ConnectException) {
                // the JDK client's ConnectException carries no message; ECONNREFUSED is what it means
                return "Connection refused";
            }
        }
        return failure.getClass().getSimpleName();
    }

    static String redact(ApiKey key, String text) {
        return key == null ? text : key.redact(text);
    }

    static String seconds(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    static String firstHeader(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
            if (entry.getKey() != null && entry.getKey().equalsIgnoreCase(name) && !entry.getValue().isEmpty()) {
                return entry.getValue().get(0);
            }
        }
        return null;
    }

    /**
     * {@code Retry-After} as RFC 9110 defines it: delta-seconds or an HTTP-date (in the past:
     * zero). Null when absent or unparseable.
     */
    static Duration retryAfter(String value, Instant now) {
        if (value == null) {
            return null;
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return null;
        }
        boolean digits = true;
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                digits = false;
                break;
            }
        }
        if (digits) {
            return v.length() > 9 ? Duration.ofSeconds(999_999_999L) : Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return wait.isNegative() ? Duration.ZERO : wait;
        } catch (DateTimeParseException notADate) {
            return null;
        }
    }
}
