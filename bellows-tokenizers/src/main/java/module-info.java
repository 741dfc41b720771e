/** Exact OpenAI token counts for core's memory (JTokkit). */
module dev.bellows.tokenizers {
    requires transitive dev.bellows.core;
    // JTokkit's jar has no module name of its own: "jtokkit" is the name Java derives from
    // the file name, stable as long as the artifact keeps its name.
    requires jtokkit;

    exports dev.bellows.tokenizers;
}
