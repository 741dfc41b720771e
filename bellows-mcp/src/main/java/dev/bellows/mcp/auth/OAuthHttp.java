package dev.bellows.mcp.auth;

import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import java.io.IOException;
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

/**
 * Sends the OAuth SDK's requests over {@code java.net.http} (one HTTP stack for all of
 * Bellows, with timeouts and interruption), and reads metadata documents. Never follows a
 * redirect with a credential: requests to authorization servers are sent as built.
 */
final class OAuthHttp {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");
    private static final int MAX_BODY = 1 << 20;

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
        HttpResponse<String> response = http().send(builder.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        HTTPResponse out = new HTTPResponse(response.statusCode());
        for (Map.Entry<String, List<String>> header : response.headers().map().entrySet()) {
            if (!header.getKey().startsWith(":")) {
                out.setHeader(header.getKey(), header.getValue().toArray(String[]::new));
            }
        }
        String text = response.body();
        out.setBody(text.length() > MAX_BODY ? text.substring(0, MAX_BODY) : text);
        return out;
    }

    /** A GET for a JSON document: its status and body. */
    HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http().send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json").GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** A GET of a page, no redirect followed (the headless browser). */
    HttpResponse<Void> visit(URI uri) throws IOException, InterruptedException {
        return http().send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.discarding());
    }
}
