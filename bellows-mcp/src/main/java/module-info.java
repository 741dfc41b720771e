/** MCP servers as tool sources, on the official MCP Java SDK; MCP authorization (OAuth 2.1). */
module dev.bellows.mcp {
    requires transitive dev.bellows.core;
    requires dev.bellows.http;
    requires java.net.http;
    requires jdk.httpserver;
    requires io.modelcontextprotocol.sdk.mcp.core;
    requires io.modelcontextprotocol.sdk.mcp.json.jackson3;
    requires reactor.core;
    requires org.reactivestreams;
    requires com.nimbusds.jose.jwt;
    // The Nimbus OAuth 2.0 SDK's jar has no module name of its own: "oauth2.oidc.sdk" is the
    // one Java derives from its file name (stable while the artifact keeps its name).
    requires oauth2.oidc.sdk;
    // Optional: only dev.bellows.mcp.server (agents offered over MCP, mounted on bellows-server) needs it.
    requires static dev.bellows.server;

    exports dev.bellows.mcp;
    exports dev.bellows.mcp.auth;
    exports dev.bellows.mcp.server;
}
