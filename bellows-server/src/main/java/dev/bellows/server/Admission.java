package dev.bellows.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether a request may be served at all, decided from its head alone, before its body is read:
 * the one gate every endpoint goes through (AG-UI, chat completions and any later one), so that
 * no web page can drive the agent.
 * <ul>
 *   <li>{@code Host} must name a loopback name or address ({@code localhost}, {@code 127.x.x.x},
 *       {@code [::1]}), the address the connection arrived on, or an allowed host: a page that
 *       reaches the server through a name of its own (DNS rebinding) is refused, so it cannot
 *       read the answers either;</li>
 *   <li>{@code Origin}, when a browser sends it, must be the server's own (the origin the
 *       request's {@code Host} names, any scheme) or an allowed one: a page of another origin
 *       cannot make the server run anything, even with a {@code no-cors} request whose answer
 *       it never reads; a browser request with no {@code Origin} but {@code Sec-Fetch-Site}
 *       saying another site sent it is refused too, unless it only reads ({@code GET});</li>
 *   <li>a body sent to a JSON endpoint must be {@code application/json} (or {@code application/*+json}): the types a page can
 *       send without asking first ({@code text/plain}, form types, none) are refused;</li>
 *   <li>a CORS preflight ({@code OPTIONS}) is answered for allowed origins only.</li>
 * </ul>
 * Clients outside browsers (curl, SDKs) send no {@code Origin} and pass the second check.
 */
final class Admission {

    /** What the preflight of an allowed origin may ask for. */
    private static final String ALLOWED_METHODS = "GET, POST, HEAD";
    private static final String ALLOWED_HEADERS = "Authorization, Content-Type, Accept";
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final Set<String> allowedHosts;
    private final Set<String> allowedOrigins;
    private final boolean anyOrigin;

    /**
     * @param allowedHosts   host names or addresses (no port) answered besides loopback ones
     * @param allowedOrigins origins ({@code scheme://host[:port]}) whose pages may call, or {@code *} for any
     */
    Admission(List<String> allowedHosts, List<String> allowedOrigins) {
        Set<String> hosts = new LinkedHashSet<>();
        for (String host : allowedHosts) {
            hosts.add(host(host));
        }
        this.allowedHosts = Set.copyOf(hosts);
        Set<String> origins = new LinkedHashSet<>();
        boolean any = false;
        for (String origin : allowedOrigins) {
            if (origin.equals("*")) {
                any = true;
            } else {
                origins.add(origin(origin));
            }
        }
        this.allowedOrigins = Set.copyOf(origins);
        this.anyOrigin = any;
    }

    /** An allowed host as compared: lower case, no port, IPv6 in brackets. */
    static String host(String given) {
        String host = given.strip().toLowerCase(Locale.ROOT);
        if (host.isEmpty() || host.contains("/") || host.contains("@") || host.contains(" ")) {
            throw new IllegalArgumentException("not a host name or address: \"" + given + "\"");
        }
        if (host.indexOf(':') != host.lastIndexOf(':') && !host.startsWith("[")) {
            host = "[" + host + "]";        // an IPv6 address given bare
        }
        return hostOf(host);
    }

    /** An allowed origin as compared: {@code scheme://host[:port]}, lower case, the scheme's default port left out. */
    static String origin(String given) {
        URI uri;
        try {
            uri = new URI(given.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not an origin (scheme://host[:port]): \"" + given + "\"");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("not an origin (http or https://host[:port], no path): \"" + given + "\"");
        }
        int port = uri.getPort();
        boolean defaultPort = port == -1 || (scheme.equals("http") && port == 80) || (scheme.equals("https") && port == 443);
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port);
    }

    /**
     * Refuses a request that must not be served; returns the origin to name in CORS headers
     * (an allowed other origin's), or null when the answer needs none.
     *
     * @param jsonBody whether the path takes a JSON body (its POSTs must say {@code application/json})
     */
    String admit(ServerExchange exchange, boolean jsonBody) throws HttpError {
        Optional<String> host = exchange.header("Host");
        if (host.isPresent() && !hostAllowed(host.get(), exchange)) {
            throw HttpError.forbidden("Host", "the Host header names \"" + hostOf(host.get()) + "\", which is neither a"
                    + " loopback name or address nor a host this server was told to answer to (a page that reaches the"
                    + " server through a name of its own is refused): allow it with --allow-host "
                    + hostOf(host.get()) + " (AgentServer.Builder.allowHosts)");
        }
        Optional<String> origin = exchange.header("Origin");
        String method = exchange.method();
        String cors = null;
        if (origin.isPresent()) {
            String own = host.map(h -> h.strip().toLowerCase(Locale.ROOT)).orElse(null);
            String normal = normalOrigin(origin.get());
            boolean same = normal != null && own != null && authority(normal).equals(withoutDefaultPort(own, normal));
            if (!same) {
                if (normal == null || !(anyOrigin || allowedOrigins.contains(normal))) {
                    throw HttpError.forbidden("Origin", "a page of the origin \"" + origin.get() + "\" may not call this"
                            + " server (only its own pages may): allow it with --allow-origin " + origin.get()
                            + " (AgentServer.Builder.allowOrigins)");
                }
                cors = normal;
            }
        } else if (!method.equals("GET") && !method.equals("HEAD")) {
            String site = exchange.header("Sec-Fetch-Site").orElse("none").strip().toLowerCase(Locale.ROOT);
            if (!site.equals("same-origin") && !site.equals("none")) {
                throw HttpError.forbidden("Sec-Fetch-Site", "a browser request sent by another site (Sec-Fetch-Site: "
                        + site + ") with no Origin: refused");
            }
        }
        if (method.equals("OPTIONS")) {
            if (cors == null) {
                throw HttpError.forbidden("Origin", "a CORS preflight is answered for allowed origins only (the"
                        + " server's own pages need none): allow an origin with --allow-origin ORIGIN"
                        + " (AgentServer.Builder.allowOrigins)");
            }
        } else if (jsonBody && method.equals("POST")) {
            String type = exchange.header("Content-Type").orElse("");
            String media = type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            // application/*+json (A2A's application/a2a+json) is no type a page can send unasked either
            if (!media.equals("application/json") && !(media.startsWith("application/") && media.endsWith("+json"))) {
                throw HttpError.unsupportedMediaType(type.isEmpty() ? "none" : type);
            }
        }
        return cors;
    }

    /** The headers of the answer to an allowed origin's preflight. */
    static Map<String, String> preflightHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Access-Control-Allow-Methods", ALLOWED_METHODS);
        headers.put("Access-Control-Allow-Headers", ALLOWED_HEADERS);
        headers.put("Access-Control-Max-Age", "600");
        return headers;
    }

    private boolean hostAllowed(String header, ServerExchange exchange) {
        String host = hostOf(header.strip().toLowerCase(Locale.ROOT));
        if (host.equals("localhost") || allowedHosts.contains(host)) {
            return true;
        }
        InetAddress literal = literal(host);
        if (literal == null) {
            return false;
        }
        return literal.isLoopbackAddress()
                || exchange.localAddress().map(local -> local.getAddress().equals(literal)).orElse(false);
    }

    /** The address a host names when it is an IP literal (no name is ever looked up), else null. */
    private static InetAddress literal(String host) {
        boolean v6 = host.startsWith("[") && host.endsWith("]");
        if (!v6 && !IPV4.matcher(host).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(v6 ? host.substring(1, host.length() - 1) : host);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** The host of a {@code Host} value: its port left out, an IPv6 literal kept in its brackets. */
    private static String hostOf(String authority) {
        String value = authority.strip().toLowerCase(Locale.ROOT);
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            return end < 0 ? value : value.substring(0, end + 1);
        }
        int colon = value.indexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }

    /** A browser's {@code Origin} in {@link #origin} form, or null when it names none ({@code null}, garbage). */
    private static String normalOrigin(String header) {
        try {
            return origin(header);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String authority(String origin) {
        return origin.substring(origin.indexOf("://") + 3);
    }

    /** The {@code Host} value without the port that is the origin's scheme's default. */
    private static String withoutDefaultPort(String host, String origin) {
        String port = origin.startsWith("https:") ? ":443" : ":80";
        return host.endsWith(port) ? host.substring(0, host.length() - port.length()) : host;
    }

    /** The exchange with the CORS headers an allowed other origin needs to read the answer. */
    static ServerExchange withCors(ServerExchange exchange, String origin) {
        return new ForwardingExchange(exchange) {
            @Override
            public OutputStream respond(int status, Map<String, String> headers) throws IOException {
                Map<String, String> all = new LinkedHashMap<>(headers);
                all.put("Access-Control-Allow-Origin", origin);
                all.put("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate");
                all.put("Vary", "Origin");
                return super.respond(status, all);
            }
        };
    }
}
