package dev.bellows.server;

import java.io.IOException;

/**
 * More endpoints on an {@link AgentServer} (A2A's, say), behind the same gate as its own: a
 * request reaches {@link #handle} only once its {@code Host} and {@code Origin} were admitted,
 * a POST's body type is JSON ({@code application/json} or {@code application/*+json}, unless
 * the endpoint {@link #checksBodyType checks it itself}), and,
 * when the server has an auth token and {@link #open} says the path needs it, the request
 * carries {@code Authorization: Bearer TOKEN}. The endpoint answers everything else itself
 * (its body's size included). Implementations must be thread-safe: requests arrive at once,
 * each on its own (virtual) thread.
 */
public interface Endpoint {

    /** Whether this endpoint answers the path (checked after the server's own paths). */
    boolean serves(String path);

    /** Whether the path is answered without the auth token (a public description, say); default no. */
    default boolean open(String path) {
        return false;
    }

    /**
     * Whether the endpoint refuses a POST body that is not JSON itself, in its own error form,
     * instead of the gate's 415: it must then refuse every type a page may send unasked
     * ({@code text/plain}, form types, none). Default no.
     */
    default boolean checksBodyType(String path) {
        return false;
    }

    /**
     * Answers one admitted request, blocking until its response is complete; calls
     * {@link ServerExchange#respond} once.
     *
     * @throws IOException only when the response cannot be written (the client went away)
     */
    void handle(ServerExchange exchange) throws IOException;
}
