/** The OpenAI-compatible streaming provider. */
module dev.bellows.openai {
    requires transitive dev.bellows.core;
    requires transitive dev.bellows.http;

    exports dev.bellows.openai;
}
