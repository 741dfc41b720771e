package dev.bellows.mcp;

import dev.bellows.mcp.auth.OAuthOptions;
import java.util.Objects;

/**
 * What a program offers every MCP server it starts: authorization for remote servers that
 * need it (where tokens are kept, how a person logs in), and the answer to a server's questions.
 *
 * @param oauth       how remote servers are authorized (OAuth 2.1)
 * @param elicitation who answers {@code elicitation/create}
 */
public record McpClientOptions(OAuthOptions oauth, ElicitationHandler elicitation) {

    /** Tokens in memory, nobody to log in or to answer questions (elicitations are declined). */
    public static final McpClientOptions DEFAULTS = new McpClientOptions(OAuthOptions.DEFAULTS, ElicitationHandler.DECLINE);

    public McpClientOptions {
        Objects.requireNonNull(oauth, "oauth");
        Objects.requireNonNull(elicitation, "elicitation");
    }

    public McpClientOptions withOAuth(OAuthOptions options) {
        return new McpClientOptions(options, elicitation);
    }

    public McpClientOptions withElicitation(ElicitationHandler handler) {
        return new McpClientOptions(oauth, handler);
    }
}
