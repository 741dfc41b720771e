package dev.bellows.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web page: {@code index.html}, {@code app.js}, {@code app.css} and {@code favicon.svg},
 * read once from the jar. Served with a Content-Security-Policy that lets the page reach its
 * own server only and run its own script only: whatever a model writes, the page shows it as
 * text (app.js never gives model output to innerHTML), and the policy stands behind that.
 */
final class Page {

    record Asset(String name, String contentType, byte[] bytes) {
    }

    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
            + " img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final Map<String, Asset> assets;

    private Page(Map<String, Asset> assets) {
        this.assets = assets;
    }

    static Page load() {
        Map<String, Asset> assets = new LinkedHashMap<>();
        assets.put("index.html", read("index.html", "text/html; charset=utf-8"));
        assets.put("app.js", read("app.js", "text/javascript; charset=utf-8"));
        assets.put("app.css", read("app.css", "text/css; charset=utf-8"));
        assets.put("favicon.svg", read("favicon.svg", "image/svg+xml"));
        return new Page(Map.copyOf(assets));
    }

    Asset asset(String name) {
        return assets.get(name);
    }

    Map<String, String> headers(Asset asset) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", asset.contentType());
        headers.put("Content-Security-Policy", CSP);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put("Cache-Control", "no-cache");
        return headers;
    }

    private static Asset read(String name, String contentType) {
        try (InputStream in = Page.class.getResourceAsStream("page/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the page's " + name + " is missing from the jar");
            }
            return new Asset(name, contentType, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the page's " + name, e);
        }
    }
}
