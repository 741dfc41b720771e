package dev.bellows.http;

import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * POSTs JSON and streams Server-Sent Events back, on {@code java.net.http}, with the failure
 * handling every provider needs: statuses and I/O failures become {@link ProviderException}s
 * classified for retrying, carrying the provider's own error message; an idle watchdog
 * bounds the wait for each next byte; API keys are redacted from every message.
 *
 * <p>Thread-safe: one client serves many concurrent requests. Plain {@code http://} URLs are
 * sent as HTTP/1.1 (no {@code h2c} upgrade attempt, which some local model servers mishandle);
 * {@code https://} negotiates HTTP/2 where the server offers it, trusting whom
 * {@link HttpSettings#sslContext()} trusts.
 *
 * <p>Over HTTP/2 the concurrent requests to one server share one connection, and so its
 * flow-control window: what a stream received and its reader has not read yet counts against
 * it (the JDK client's defaults: up to 16 MiB per stream, 32 MiB per connection). Streams
 * that are read, or closed, leave it free; a stream left open and unread while its server
 * keeps sending holds back every other stream on the connection once such streams hold the
 * whole window. Close a stream you stop reading.
 *
 * <p>Threads: a request is sent, and its response read, on the calling thread; besides it,
 * a client has the JDK client's selector thread and one watchdog thread, which ticks while
 * something waits and ends after a quiet while ({@link #close()} ends it for good).
 */
public final class SseClient implements AutoCloseable {

    /** Error bodies are read up to this size; the message is cut much shorter anyway. */
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final HttpSettings settings;
    private final HttpClient http;
    private final Watchdog watchdog;
    /** Exchanges sent and not yet let go of by their readers (see {@link BodyReader#close()}). */
    private final AtomicInteger inFlight = new AtomicInteger();

    public SseClient(HttpSettings settings) {
        this(settings, new Watchdog());
    }

    /** With a watchdog of the caller's (tests drive one by hand). */
    SseClient(HttpSettings settings, Watchdog watchdog) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.watchdog = Objects.requireNonNull(watchdog, "watchdog");
        // Not a thread pool: see execute. A new virtual thread for every task, as the JDK client
        // would use a pool's threads, cost about four per request, each a carrier wake-up.
        this.http = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .sslContext(settings.sslContext())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(this::execute)
                .build();
    }

    /**
     * Where the HTTP client's own tasks run (decoding a response, handing its bytes to the
     * body, completing the exchange; none of them blocks). With one exchange in flight, where
     * they arise: inline on the thread that sent the request or reads the body, else on the
     * client's selector thread; a hand-off to another thread would buy nothing but a wake-up.
     * With several, the selector thread would decode every response of the client one after
     * another while the cores that run the callers wait for it: the tasks that arise there go
     * to a new virtual thread each, so that responses are decoded side by side; tasks that
     * arise on a virtual thread (a caller's own) still run there.
     */
    private void execute(Runnable task) {
        if (inFlight.get() <= 1 || Thread.currentThread().isVirtual()) {
            task.run();
        } else {
            Thread.startVirtualThread(task);
        }
    }

    /** The settings this client was made with. */
    public HttpSettings settings() {
        return settings;
    }

    /**
     * POSTs the JSON body, asking for {@code text/event-stream}, and returns once the status
     * line and headers arrived.
     *
     * @param headers        extra request headers (authorization among them); never printed
     * @param apiKeyToRedact the key to remove from every message, or null
     * @throws ProviderException for a non-2xx status (the body is read and its message
     *                           extracted), a connection failure, a time-out, or an interrupt
     */
    public SseConnection post(URI uri, Map<String, String> headers, String jsonBody, ApiKey apiKeyToRedact)
            throws ProviderException {
        Objects.requireNonNull(jsonBody, "jsonBody");
        return post(uri, headers, HttpRequest.BodyPublishers.ofByteArray(jsonBody.getBytes(StandardCharsets.UTF_8)),
                apiKeyToRedact);
    }

    /**
     * As {@link #post(URI, Map, String, ApiKey)}, with the body already encoded as UTF-8 JSON
     * by the caller, e.g. from parts it keeps encoded (its length must be known up front, so
     * that it is sent with a {@code Content-Length}).
     */
    public SseConnection post(URI uri, Map<String, String> headers, HttpRequest.BodyPublisher jsonBody,
                              ApiKey apiKeyToRedact) throws ProviderException {
        Objects.requireNonNull(jsonBody, "jsonBody");
        if (jsonBody.contentLength() < 0) {
            throw new IllegalArgumentException("the body's length must be known before it is sent");
        }
        Exchange exchange = send(uri, headers, jsonBody, apiKeyToRedact, "text/event-stream");
        List<String> contentTypes = exchange.headers().map().get("Content-Type");   // (keys ignore case)
        String contentType = contentTypes == null || contentTypes.isEmpty() ? ""
                : contentTypes.getFirst().strip().toLowerCase(java.util.Locale.ROOT);
        // No Content-Type at all is let through: some small servers leave it out of streams.
        if (!contentType.isEmpty() && !contentType.startsWith("text/event-stream")) {
            String body;
            try (BodyReader reader = exchange.reader()) {
                body = new String(reader.readUpTo(MAX_ERROR_BODY), StandardCharsets.UTF_8);
            }
            int semicolon = contentType.indexOf(';');
            throw HttpFailures.notAnEventStream(semicolon < 0 ? contentType : contentType.substring(0, semicolon).strip(),
                    uri, body, apiKeyToRedact);
        }
        return new DefaultSseConnection(exchange.status(), exchange.headers().map(),
                exchange.reader());
    }

    /** A plain (non-streaming) JSON POST, with the same error handling; returns the body. */
    public String postJson(URI uri, Map<String, String> headers, String jsonBody, ApiKey apiKeyToRedact)
            throws ProviderException {
        Objects.requireNonNull(jsonBody, "jsonBody");
        Exchange exchange = send(uri, headers, HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8),
                apiKeyToRedact, "application/json");
        try (BodyReader reader = exchange.reader()) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = reader.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private record Exchange(java.net.http.HttpHeaders headers, int status, BodyReader reader) {
    }

    private Exchange send(URI uri, Map<String, String> headers, HttpRequest.BodyPublisher publisher, ApiKey key,
                          String accept) throws ProviderException {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(publisher, "publisher");
        // No HttpRequest.timeout: the JDK client keeps request timers in one set guarded by
        // the client's monitor and wakes its selector thread for every one, which thousands of
        // concurrent sessions contend on; the wait for the headers is bounded below instead.
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json")
                .header("Accept", accept)
                .POST(publisher);
        if ("http".equalsIgnoreCase(uri.getScheme())) {
            builder.version(HttpClient.Version.HTTP_1_1);
        }
        try {
            headers.forEach(builder::setHeader);
        } catch (IllegalArgumentException badHeader) {
            // say that a header is wrong, never what it holds (it may be the key)
            throw new ProviderException(Kind.CLIENT_ERROR, "cannot send the request to "
                    + HttpFailures.display(uri) + ": a request header has an invalid name or value");
        }
        BodyReader reader = new BodyReader(uri, settings.idleTimeout(), watchdog, key, inFlight);
        ResponseHead handler = new ResponseHead();
        if (!reader.awaitHeaders()) {
            reader.close();
            throw new ProviderException(Kind.CANCELLED, "the request to " + HttpFailures.display(uri)
                    + " was not sent: its client is closed");
        }
        // HttpClient.send on this thread, not sendAsync: send writes the request inline and
        // completes without sendAsync's hop through the common ForkJoinPool. Its wait is
        // untimed; the watchdog bounds it by interrupting this thread (see BodyReader).
        HttpRequest request = builder.build();
        HttpResponse<BodyStream> response = null;
        Exception failure = null;
        boolean inTime;
        try {
            try {
                response = http.send(request, handler);
            } catch (IOException e) {
                if (!closedUnanswered(e) || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                // The connection ended before a byte of the answer came: a kept-alive connection
                // the server let go (its idle timeout, its cap on idle connections) as this
                // request went out on it, so the request was never answered. Sent once more at
                // once, as browsers and curl do, on another connection; the JDK client does the
                // same for idempotent methods only. A second such end is a failure as any other.
                response = http.send(request, handler);
            }
        } catch (InterruptedException | IOException e) {
            failure = e;
        } finally {
            inTime = reader.headersDone();
        }
        if (response == null) {
            boolean interrupted = failure instanceof InterruptedException || Thread.currentThread().isInterrupted();
            if (!inTime || interrupted) {
                handler.abandon();      // as HttpClient.send does: the exchange is aborted
                reader.close();
            }
            if (!inTime) {
                throw HttpFailures.beforeResponse(new HttpTimeoutException("request timed out"), uri, settings, key);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new ProviderException(Kind.CANCELLED, "the request to " + HttpFailures.display(uri) + " was cancelled");
            }
            reader.close();
            throw HttpFailures.beforeResponse(failure, uri, settings, key);
        }
        reader.attach(response.body());
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            String body;
            try (reader) {
                body = new String(reader.readUpTo(MAX_ERROR_BODY), StandardCharsets.UTF_8);
            }
            throw HttpFailures.forStatus(status, uri, response.headers().map(), body, key, Instant.now());
        }
        return new Exchange(response.headers(), status, reader);
    }

    /**
     * True when the connection ended before any byte of a response came: an end of stream,
     * or a reset or broken pipe that the JDK client reports as its HTTP/1.1 header parser
     * having received nothing.
     */
    static boolean closedUnanswered(IOException failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.io.EOFException
                    || (t.getMessage() != null && t.getMessage().startsWith("HTTP/1.1 header parser received no bytes"))) {
                return true;
            }
        }
        return false;
    }

    /** Closes the HTTP client and the watchdog; open connections fail afterwards. */
    @Override
    public void close() {
        watchdog.close();
        http.shutdownNow();
    }

    @Override
    public String toString() {
        return "SseClient[" + settings + "]";
    }
}
