package dev.bellows.a2a.client;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP under both bindings, on the JDK's client: requests with the caller's headers and
 * {@code A2A-Version: 1.0}, bodies read as JSON, streams handed over open, and every failure
 * turned into an {@link A2aException} (the agent's A2A error, in either binding's form) or an
 * {@link A2aClientException} whose message names the URL without its query and never a header.
 * Thread-safe.
 */
final class Http implements AutoCloseable {

    static final ObjectMapper JSON = Jackson.JSON;
    static final String VERSION_HEADER = "A2A-Version";
    static final String VERSION = "1.0";
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** An answer larger than this is refused rather than read into memory (a task with its whole history fits). */
    static final int MAX_BODY = 16 * 1024 * 1024;
    private static final int MAX_MESSAGE = 300;

    private final HttpClient client;
    private final Map<String, String> headers;
    /** The header values, and the credentials in them, to take out of whatever the agent says. */
    private final java.util.List<String> secrets;
    private final Duration requestTimeout;

    Http(Map<String, String> headers, Duration connectTimeout, Duration requestTimeout) {
        this.headers = Map.copyOf(headers);
        this.secrets = secrets(headers);
        this.requestTimeout = requestTimeout;
        this.client = HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)   // a redirect would carry the headers elsewhere
                .build();
    }

    /** A request of the method with a JSON body (or none), answered with JSON. */
    JsonNode json(String method, URI uri, String contentType, Object body) {
        HttpResponse<InputStream> response = send(request(method, uri, contentType, body, "application/json")
                .timeout(requestTimeout).build(), uri);
        try (InputStream in = response.body()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, display(uri)
                        + " answered with more than " + MAX_BODY / (1024 * 1024) + " MiB", null);
            }
            if (bytes.length == 0) {
                return JSON.missingNode();
            }
            return JSON.readTree(bytes);
        } catch (tools.jackson.core.JacksonException e) {
            throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0,
                    display(uri) + " answered with something that is not JSON", null);
        } catch (IOException e) {
            throw failure(e, uri);
        }
    }

    /** A request answered with a stream of Server-Sent Events; the body is the caller's to close. */
    InputStream events(String method, URI uri, String contentType, Object body) {
        HttpResponse<InputStream> response = send(request(method, uri, contentType, body, "text/event-stream").build(), uri);
        String type = response.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
        if (!type.startsWith("text/event-stream")) {
            // An agent may answer a stream request with one JSON error object; read it as such.
            try (InputStream in = response.body()) {
                JsonNode json = JSON.readTree(in.readNBytes(MAX_ERROR_BODY));
                throw errorIn(json, uri).orElseGet(() -> new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0,
                        display(uri) + " did not answer with an event stream (Content-Type " + (type.isEmpty() ? "none" : type)
                                + ")", null));
            } catch (IOException | JacksonException e) {
                throw new A2aClientException(A2aClientException.Kind.BAD_RESPONSE, 0, display(uri)
                        + " did not answer with an event stream (Content-Type " + (type.isEmpty() ? "none" : type) + ")", null);
            }
        }
        return response.body();
    }

    private HttpRequest.Builder request(String method, URI uri, String contentType, Object body, String accept) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).header("Accept", accept);
        if ("http".equalsIgnoreCase(uri.getScheme())) {
            builder.version(HttpClient.Version.HTTP_1_1);
        }
        try {
            headers.forEach(builder::setHeader);
        } catch (IllegalArgumentException e) {
            // never say what the header holds: it may be a token
            throw new A2aClientException(A2aClientException.Kind.CONNECTION, 0,
                    "cannot call " + display(uri) + ": a configured header has an invalid name or value", null);
        }
        builder.setHeader(VERSION_HEADER, VERSION);
        if (body == null) {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            byte[] bytes;
            try {
                bytes = JSON.writeValueAsBytes(body);
            } catch (tools.jackson.core.JacksonException e) {
                throw new IllegalArgumentException("the request cannot be written as JSON: " + e.getOriginalMessage(), e);
            }
            builder.setHeader("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
        }
        return builder;
    }

    private HttpResponse<InputStream> send(HttpRequest request, URI uri) {
        HttpResponse<InputStream> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new A2aClientException(A2aClientException.Kind.CANCELLED, 0, "the call to " + display(uri)
                    + " was cancelled", e);
        } catch (IOException e) {
            throw failure(e, uri);
        }
        int status = response.statusCode();
        if (status >= 200 && status <= 299) {
            return response;
        }
        JsonNode json = null;
        try (InputStream in = response.body()) {
            byte[] bytes = in.readNBytes(MAX_ERROR_BODY);
            json = bytes.length == 0 ? null : JSON.readTree(bytes);
        } catch (IOException | JacksonException e) {
            // not JSON: the status says enough
        }
        if (json != null) {
            java.util.Optional<RuntimeException> error = errorIn(json, uri);
            if (error.isPresent()) {
                throw error.get();
            }
        }
        String message = json == null ? "" : redact(oneLine(json.at("/error/message").asString(json.path("message").asString(""))));
        String redirect = status >= 300 && status <= 399 ? response.headers().firstValue("Location")
                .map(location -> " (a redirect to " + display(uri.resolve(location)) + ": redirects are not followed,"
                        + " since they would carry the headers elsewhere; use that URL)").orElse("") : "";
        throw new A2aClientException(A2aClientException.Kind.HTTP_STATUS, status, display(uri) + " answered HTTP "
                + status + redirect + (status == 401 || status == 403 ? " (check the headers or token configured for it)" : "")
                + (message.isEmpty() ? "" : ": " + message), null);
    }

    /**
     * The A2A error in a body, in either binding's form: a JSON-RPC error object, or HTTP+JSON's
     * {@code google.rpc.Status} with an {@code ErrorInfo} naming the reason.
     */
    java.util.Optional<RuntimeException> errorIn(JsonNode body, URI uri) {
        JsonNode error = body.path("error");
        if (!error.isObject()) {
            return java.util.Optional.empty();
        }
        String message = redact(oneLine(error.path("message").asString("")));
        A2aError kind = null;
        for (JsonNode detail : error.has("details") ? error.path("details") : error.path("data")) {
            String reason = detail.path("reason").asString("");
            if (detail.path("@type").asString("").endsWith("google.rpc.ErrorInfo") && !reason.isEmpty()) {
                kind = java.util.Arrays.stream(A2aError.values()).filter(e -> e.reason().equals(reason)).findFirst()
                        .orElse(null);
            }
        }
        if (kind == null && error.path("code").isInt() && body.has("jsonrpc")) {
            kind = A2aError.ofCode(error.path("code").asInt());
        }
        if (kind == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new A2aException(kind, "the agent at " + display(uri) + " answered "
                + kind.reason() + (message.isEmpty() ? "" : ": " + message)));
    }

    /**
     * What an agent says, with every configured header value taken out: an agent may echo the
     * token it refused, and its words reach messages, logs and terminals.
     */
    String redact(String text) {
        String result = text;
        for (String secret : secrets) {
            result = result.replace(secret, "[redacted]");
        }
        return result;
    }

    /** Each header value, and its last word (the credentials of {@code Bearer TOKEN}), longest first. */
    static java.util.List<String> secrets(Map<String, String> headers) {
        java.util.Set<String> secrets = new java.util.HashSet<>();
        for (String value : headers.values()) {
            String v = value.strip();
            if (v.length() >= 4) {
                secrets.add(v);
            }
            String last = v.substring(v.lastIndexOf(' ') + 1);
            if (last.length() >= 4) {
                secrets.add(last);
            }
        }
        return secrets.stream().sorted(java.util.Comparator.comparingInt(String::length).reversed()).toList();
    }

    static A2aClientException failure(IOException e, URI uri) {
        if (e instanceof InterruptedIOException && !(e instanceof HttpTimeoutException) || Thread.currentThread().isInterrupted()) {
            return new A2aClientException(A2aClientException.Kind.CANCELLED, 0, "the call to " + display(uri)
                    + " was cancelled", e);
        }
        String why = e instanceof HttpTimeoutException ? "timed out"
                : e instanceof java.net.ConnectException ? "connection refused"
                : oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        return new A2aClientException(A2aClientException.Kind.CONNECTION, 0, "cannot reach " + display(uri) + ": " + why, e);
    }

    /** The URL as messages show it: scheme, host, port and path, no query or user info. */
    static String display(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    static String oneLine(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "...";
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        client.shutdownNow();
    }
}
