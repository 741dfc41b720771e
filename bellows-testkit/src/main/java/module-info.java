/** Test fixtures: the mock model server, scripted providers, the session-store contract. */
module dev.bellows.testkit {
    requires transitive dev.bellows.core;
    requires transitive jdk.httpserver;
    requires java.logging;
    // JUnit and AssertJ are optional dependencies: only SessionStoreContract and the helpers
    // a test calls need them, and a test has them anyway.
    requires static org.junit.jupiter.api;
    requires static org.assertj.core;

    exports dev.bellows.testkit;
    exports dev.bellows.testkit.sessions;
}
