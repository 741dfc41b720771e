/**
 * Bellows' core: the agent loop, its events, tools, providers' SPI, memory and sessions' SPI,
 * with no network, no terminal and no database. See docs/modules.md for what each module
 * exports and why.
 */
module dev.bellows.core {
    // Jackson's trees (JsonNode) are in the API: a user of core reads them without a requires.
    requires transitive tools.jackson.databind;
    requires tools.jackson.dataformat.yaml;
    requires com.networknt.schema;

    exports dev.bellows.agent;
    exports dev.bellows.event;
    exports dev.bellows.format;
    exports dev.bellows.memory;
    exports dev.bellows.plan;
    exports dev.bellows.prompt;
    exports dev.bellows.provider;
    exports dev.bellows.secret;
    exports dev.bellows.stream;
    exports dev.bellows.tool;
    exports dev.bellows.tool.chain;
    exports dev.bellows.tool.annotation;

    // The one shared, configured Jackson mapper (issue 32's "one JSON"): every Bellows module
    // reads and writes through it, and no user should depend on its settings.
    exports dev.bellows.json.internal to
        dev.bellows.http, dev.bellows.openai, dev.bellows.anthropic, dev.bellows.mcp, dev.bellows.opentelemetry,
        dev.bellows.server, dev.bellows.temporal, dev.bellows.a2a, dev.bellows.eval, dev.bellows.testkit;

    // SessionJson: the JSON forms every session store keeps a plan, metadata and a message's
    // native parts in; bellows-sessions-jdbc's stores write them as core's in-memory ones do. A
    // user reads sessions through SessionStore and never sees the stored text.
    exports dev.bellows.memory.internal to dev.bellows.sessions.jdbc;
    // StreamRedaction: secrets split across a stream's deltas kept out of the events files
    // bellows-eval writes, as the CLI's --output jsonl does (one implementation, not two).
    exports dev.bellows.event.internal to dev.bellows.eval;
    // SubAgentTrail: the sub-agents' events a session keeps, which bellows-server's threads
    // show as the CLI's sessions do.
    exports dev.bellows.agent.internal to dev.bellows.server;
    // JsonSyntax: why a text is not JSON, in the words every other message about JSON uses
    // (a provider's malformed event, a mock script), built on the decoders' strict reader.
    exports dev.bellows.stream.internal to dev.bellows.openai, dev.bellows.anthropic, dev.bellows.testkit;
}
