/** Agents over HTTP (AG-UI, OpenAI chat completions, the chat page), and its Jetty adapter. */
module dev.bellows.server {
    requires transitive dev.bellows.core;
    // Jetty is optional: only dev.bellows.server.jetty (JettyAgentServer) needs it.
    requires static org.eclipse.jetty.server;
    requires static org.eclipse.jetty.http;
    requires static org.eclipse.jetty.io;
    requires static org.eclipse.jetty.util;

    exports dev.bellows.server;
    exports dev.bellows.server.jetty;
}
