package dev.bellows.mcp.auth;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The MCP authorization specification's rule for authorization server endpoints: they MUST use
 * HTTPS. Plain HTTP is let through only on a loopback host ({@code localhost}, 127.0.0.0/8,
 * {@code ::1}), a server on the user's own machine (development, tests), where nothing crosses
 * a network. Checked on every such URL before any request is sent to it: a registration, a
 * client secret, a code and its verifier or a token sent over plain HTTP could be read and
 * changed on the way. The MCP server's own URL (the resource) is not held to this rule.
 *
 * <p>Decided from the URL's text alone: a name is never resolved (a name that resolves to a
 * loopback address is not loopback by its text, and looking it up would already be a request).
 */
final class AuthServerUrls {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private AuthServerUrls() {
    }

    /**
     * Refuses {@code url} unless it is HTTPS, or HTTP on a loopback host.
     *
     * @param what what the URL is, for the message: {@code the token endpoint of the authorization server}
     * @throws OAuthException naming the URL and the rule
     */
    static void requireSecure(URI url, String what) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (url.getHost() != null && (scheme.equals("https") || scheme.equals("http") && isLoopback(url.getHost()))) {
            return;
        }
        throw new OAuthException(what + " " + shown(url) + " is not an HTTPS URL: refused before any request to it "
                + "(the MCP authorization specification requires HTTPS for authorization server endpoints; plain "
                + "http only on a loopback host: localhost, 127.0.0.0/8, ::1)");
    }

    /** Whether {@code host}, as a URL gives it, is loopback by its text: {@code localhost}, 127.x.y.z, {@code [::1]}. */
    static boolean isLoopback(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        if (name.equals("localhost")) {
            return true;
        }
        var ipv4 = IPV4.matcher(name);
        if (ipv4.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(ipv4.group(i)) > 255) {
                    return false;
                }
            }
            return Integer.parseInt(ipv4.group(1)) == 127;
        }
        if (name.startsWith("[") && name.endsWith("]") && name.indexOf(':') > 0) {
            try {
                // An IPv6 literal: only its form is checked, nothing is looked up.
                return InetAddress.getByName(name.substring(1, name.length() - 1)).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return false;
    }

    /** The URL as a message shows it: scheme, host, port and path, never a user's part or a query. */
    private static String shown(URI url) {
        if (url.getHost() == null) {
            return "\"" + url.getScheme() + ":" + (url.getRawPath() == null ? "" : url.getRawPath()) + "\"";
        }
        return url.getScheme() + "://" + url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort())
                + (url.getRawPath() == null ? "" : url.getRawPath());
    }
}
