/** Server-Sent Events over java.net.http, shared by the providers. */
module dev.bellows.http {
    requires transitive dev.bellows.core;
    requires transitive java.net.http;

    exports dev.bellows.http;
    // The request-body writers and the event readers that both providers share (one copy,
    // not two): theirs, not a user's.
    exports dev.bellows.http.internal to dev.bellows.openai, dev.bellows.anthropic;
}
