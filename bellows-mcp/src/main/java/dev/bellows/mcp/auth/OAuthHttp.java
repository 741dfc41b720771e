package dev.bellows.mcp.auth;

import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends the OAuth SDK's requests over {@code java.net.http} (one HTTP stack for all of
 * Bellows, with timeouts and interruption), and reads metadata documents. Never follows a
 * redirect with a credential: requests to authorization servers are sent as built.
 *
 * <p>Every answer is read in bounded memory and time: at most {@link #MAX_BODY} bytes of a body
 * (a larger one fails, naming the URL and the limit, its connection closed unread), and the
 * whole body within {@link #TIMEOUT} of the request (the JDK's request timeout ends at the
 * headers: a server that trickles its body byte by byte would otherwise hold a login forever).
 */
final class OAuthHttp {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");
    /** The most bytes of an answer's body read: 1 MiB, far more than any metadata document or token response. */
    static final int MAX_BODY = 1 << 20;

    private volatile HttpClient client;

    /** Made on the first request: a server that never asks for authorization costs no client. */
    private HttpClient http() {
        HttpClient made = client;
        if (made == null) {
            synchronized (this) {
                made = client;
                if (made == null) {
                    made = newClient();
                    client = made;
                }
            }
        }
        return made;
    }

    static HttpClient newClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** Sends a request the OAuth SDK built and gives its answer back in the SDK's form. */
    HTTPResponse send(HTTPRequest request) throws IOException, InterruptedException {
        // Discovery refused such endpoints already; this holds for stored ones too (a refresh).
        AuthServerUrls.requireSecure(request.getURI(), "the authorization server endpoint");
        HttpRequest.Builder builder = HttpRequest.newBuilder(request.getURI()).timeout(TIMEOUT);
        for (Map.Entry<String, List<String>> header : request.getHeaderMap().entrySet()) {
            if (!RESTRICTED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                for (String value : header.getValue()) {
                    builder.header(header.getKey(), value);
                }
            }
        }
        String body = request.getBody();
        builder.method(request.getMethod().name(), body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        HttpResponse<InputStream> response = http().send(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
        String text = bounded(response, request.getURI());
        HTTPResponse out = new HTTPResponse(response.statusCode());
        for (Map.Entry<String, List<String>> header : response.headers().map().entrySet()) {
            if (!header.getKey().startsWith(":")) {
                out.setHeader(header.getKey(), header.getValue().toArray(String[]::new));
            }
        }
        out.setBody(text);
        return out;
    }

    /** An answer's status and body. */
    record Document(int statusCode, String body) {
    }

    /** A GET for a JSON document: its status and body. */
    Document get(URI uri) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = http().send(HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        return new Document(response.statusCode(), bounded(response, uri));
    }

    /**
     * A GET of a page, no redirect followed (the headless browser): its status and headers, the
     * body never read (closed at once: a page may be large or never end).
     */
    HttpResponse<InputStream> visit(URI uri) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = http().send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        response.body().close();
        return response;
    }

    /** The body as text, at most {@link #MAX_BODY} bytes of it and within {@link #TIMEOUT}; else an OAuthException. */
    private static String bounded(HttpResponse<InputStream> response, URI from) throws IOException {
        AtomicBoolean late = new AtomicBoolean();
        InputStream in = response.body();
        // Closing the stream ends a read that blocks: the deadline of the whole body. The close
        // runs on a virtual thread, not in the common ForkJoinPool the application's futures share.
        CompletableFuture.delayedExecutor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS,
                command -> Thread.ofVirtual().name("mcp-oauth-deadline").start(command)).execute(() -> {
            late.set(true);
            closeQuietly(in);
        });
        byte[] bytes;
        try (in) {
            bytes = in.readNBytes(MAX_BODY + 1);
        } catch (IOException e) {
            if (late.get()) {
                throw new OAuthException("the answer of " + Discovery.display(from) + " did not arrive within "
                        + TIMEOUT.toSeconds() + " s", e, true);
            }
            throw e;
        }
        if (bytes.length > MAX_BODY) {
            throw new OAuthException("the answer of " + Discovery.display(from) + " is larger than "
                    + (MAX_BODY >> 20) + " MiB: not read on (no metadata document or token response is that large)");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // closing a stream no longer read
        }
    }
}
