package dev.bellows.mcp;

import dev.bellows.mcp.auth.OAuthOptions;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a program offers every MCP server it starts: authorization for remote servers that
 * need it (where tokens are kept, how a person logs in), and the answer to a server's questions.
 *
 * @param oauth          how remote servers are authorized (OAuth 2.1)
 * @param elicitation    who answers {@code elicitation/create}
 * @param requestHeaders headers added to each HTTP request to a remote server, asked for on the
 *                       thread that sends it (for a tool call, the thread that runs the call):
 *                       a tracer's {@code traceparent}; none by default
 */
public record McpClientOptions(OAuthOptions oauth, ElicitationHandler elicitation,
                               Supplier<Map<String, String>> requestHeaders) {

    private static final Supplier<Map<String, String>> NO_HEADERS = Map::of;

    /** Tokens in memory, nobody to log in or to answer questions (elicitations are declined). */
    public static final McpClientOptions DEFAULTS = new McpClientOptions(OAuthOptions.DEFAULTS, ElicitationHandler.DECLINE);

    public McpClientOptions {
        Objects.requireNonNull(oauth, "oauth");
        Objects.requireNonNull(elicitation, "elicitation");
        Objects.requireNonNull(requestHeaders, "requestHeaders");
    }

    /** Options that add no headers of their own. */
    public McpClientOptions(OAuthOptions oauth, ElicitationHandler elicitation) {
        this(oauth, elicitation, NO_HEADERS);
    }

    public McpClientOptions withOAuth(OAuthOptions options) {
        return new McpClientOptions(options, elicitation, requestHeaders);
    }

    public McpClientOptions withElicitation(ElicitationHandler handler) {
        return new McpClientOptions(oauth, handler, requestHeaders);
    }

    /** With {@code headers} added to every HTTP request (never replacing one the server's configuration or the protocol sets). */
    public McpClientOptions withRequestHeaders(Supplier<Map<String, String>> headers) {
        return new McpClientOptions(oauth, elicitation, headers);
    }
}
