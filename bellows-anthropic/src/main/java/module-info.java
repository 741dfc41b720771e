/** The Anthropic Messages streaming provider. */
module dev.bellows.anthropic {
    requires transitive dev.bellows.core;
    requires transitive dev.bellows.http;

    exports dev.bellows.anthropic;
}
