package dev.bellows.anthropic;

import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ProviderException;
import java.net.http.HttpRequest;

/**
 * The benchmarks' way to the provider's package-private request writer: in the provider's
 * package, in this module's tests (bellows-bench gets it from the test jar), so that the
 * library's API stays as it is. Writes bodies
 * exactly as {@link AnthropicProvider#stream} does before it sends one.
 */
public final class RequestBodyProbe {

    private final AnthropicRequests requests;

    /** A writer with the provider's defaults: 4096 {@code max_tokens}, no thinking. */
    public RequestBodyProbe(boolean promptCaching) {
        this.requests = new AnthropicRequests(AnthropicProvider.DEFAULT_MAX_TOKENS, null, promptCaching);
    }

    /** The body as the provider hands it to the HTTP client. */
    public HttpRequest.BodyPublisher publisher(ChatRequest request) throws ProviderException {
        return requests.write(request).publisher();
    }

    /** The body's bytes, copied into one array (to check it, not to measure it). */
    public byte[] bytes(ChatRequest request) throws ProviderException {
        return requests.write(request).bytes();
    }
}
