package dev.bellows.provider;

/**
 * A model behind an API: the "dumb pipe" that sends a conversation and streams the answer
 * back as chunks, separating the provider's own reasoning channel from the text. It knows
 * nothing of tags, tools or the agent loop.
 *
 * <p>Implementations are thread-safe: several streams may be open at once.
 */
public interface Provider extends AutoCloseable {

    /** A short name for messages and logs ({@code openai}, {@code anthropic}). */
    String name();

    /**
     * Sends the request and returns the answer's stream once the API has accepted it (HTTP
     * status received). Failures before that are thrown here, classified for retrying.
     *
     * @throws ProviderException when the request cannot be sent or the API refuses it
     */
    ChatStream stream(ChatRequest request) throws ProviderException;

    /**
     * The URI requests are sent to, when the provider talks to an API over the network (its
     * host and port are a trace's {@code server.address} and {@code server.port}); empty, the
     * default, when it does not or will not say.
     */
    default java.util.Optional<java.net.URI> apiEndpoint() {
        return java.util.Optional.empty();
    }

    /** Releases shared resources (HTTP clients); open streams should be closed first. */
    @Override
    default void close() {
    }
}
