/** A2A 1.0: Bellows agents served to other agents, and remote A2A agents as tools. */
module dev.bellows.a2a {
    requires transitive dev.bellows.core;
    requires transitive dev.bellows.server;
    requires dev.bellows.http;
    requires java.net.http;

    exports dev.bellows.a2a;
    exports dev.bellows.a2a.client;
    exports dev.bellows.a2a.server;

    // The protocol's records are read and written by Jackson (ProtoJSON).
    opens dev.bellows.a2a to tools.jackson.databind;
}
