package dev.bellows.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP request and its response, as {@link AgentServer} sees them: what an adapter for an
 * HTTP server gives it. The adapter of Jetty 12 ({@code dev.bellows.server.jetty}) and the Spring
 * Boot starter's implement it; implement it for any other server in a few lines.
 *
 * <p>{@link AgentServer#handle} calls {@link #respond} once, then writes the body and
 * {@code flush()}es the stream after each event: the adapter must send what was written at each
 * flush (no buffering of a whole response), and make a write to a client that went away fail
 * with an {@link IOException}. The handler returns when the response is complete; the adapter
 * then closes the stream and ends the exchange.
 */
public interface ServerExchange {

    /** The request method, upper case ({@code GET}, {@code POST}). */
    String method();

    /** The request path without the query ({@code /agui}). */
    String path();

    /**
     * The request's query string, undecoded, without the {@code ?} ({@code a=1&b=2}); empty when
     * it has none or the adapter does not give it (the default).
     */
    default Optional<String> query() {
        return Optional.empty();
    }

    /** The first value of the request header of that name (case-insensitive), if there is one. */
    Optional<String> header(String name);

    /** The request body; read at most once. */
    InputStream body() throws IOException;

    /** The body's length from {@code Content-Length}, or -1 when the request did not say. */
    long contentLength();

    /**
     * The local address the request's connection arrived on, when the adapter knows it: a
     * {@code Host} naming that address (a server listening on every interface, reached by one of
     * its addresses) is answered as a loopback one is. Empty by default.
     */
    default Optional<InetSocketAddress> localAddress() {
        return Optional.empty();
    }

    /**
     * Sends the status and headers and gives the stream of the response body. Called once.
     *
     * @param headers the response headers; {@code Content-Length} among them when the length is
     *                known, else the adapter streams the body (chunked, in HTTP/1.1)
     */
    OutputStream respond(int status, Map<String, String> headers) throws IOException;
}
