package dev.bellows.mcp.auth;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Where the registrations and tokens of MCP servers are kept, per server URL. A token is read
 * back only for the URL it was stored under. {@link #file(Path)} keeps them in a JSON file of
 * mode 0600 ({@code mcp-oauth.json} in the command line's data directory); {@link #inMemory()}
 * for the life of the process. Implementations are thread-safe.
 */
public interface TokenStore {

    /** What is stored for the server; {@link StoredCredentials#NONE} when nothing is. */
    StoredCredentials read(URI server);

    /**
     * Changes what is stored for the server, atomically with respect to other updates (other
     * processes too, for the file).
     *
     * @param change given what is stored ({@link StoredCredentials#NONE} when nothing), returns
     *               what to store; an empty value removes the entry
     * @throws OAuthException when the store cannot be written
     */
    void update(URI server, UnaryOperator<StoredCredentials> change);

    /** Removes everything stored for the server. */
    default void remove(URI server) {
        update(server, stored -> StoredCredentials.NONE);
    }

    /** A store that lives as long as the process. */
    static TokenStore inMemory() {
        Map<String, StoredCredentials> entries = new ConcurrentHashMap<>();
        return new TokenStore() {
            @Override
            public StoredCredentials read(URI server) {
                return entries.getOrDefault(key(server), StoredCredentials.NONE);
            }

            @Override
            public void update(URI server, UnaryOperator<StoredCredentials> change) {
                entries.compute(key(server), (key, old) -> {
                    StoredCredentials next = change.apply(old == null ? StoredCredentials.NONE : old);
                    return next == null || next.isEmpty() ? null : next;
                });
            }
        };
    }

    /**
     * A JSON file, created with mode 0600 in a folder created with mode 0700; every write goes
     * to a new 0600 file renamed over it; a symbolic link in its place is refused.
     */
    static TokenStore file(Path file) {
        return new FileTokenStore(file);
    }

    /** The key a server is stored under: its URL without query or fragment. */
    static String key(URI server) {
        return server.getScheme() + "://" + server.getRawAuthority() + (server.getRawPath() == null ? "" : server.getRawPath());
    }
}
