package dev.bellows.http;

import java.net.URI;

/** How an endpoint's address may appear in messages and logs. */
public final class SafeUris {

    private SafeUris() {
    }

    /**
     * Scheme, host, port and path only: user info (which may hold credentials), query and
     * fragment (which may hold a key) are left out.
     */
    public static String display(URI uri) {
        StringBuilder out = new StringBuilder();
        if (uri.getScheme() != null) {
            out.append(uri.getScheme()).append("://");
        }
        if (uri.getHost() != null) {
            out.append(uri.getHost());
        }
        if (uri.getPort() != -1) {
            out.append(':').append(uri.getPort());
        }
        if (uri.getRawPath() != null) {
            out.append(uri.getRawPath());
        }
        return out.toString();
    }
}
