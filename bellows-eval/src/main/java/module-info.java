/** Evaluations: datasets, evaluators, runs and their reports; JUnit 5 dynamic tests. */
module dev.bellows.eval {
    requires transitive dev.bellows.core;
    requires tools.jackson.dataformat.yaml;
    // Optional: only dev.bellows.eval.junit (EvalTests) needs JUnit's API.
    requires static org.junit.jupiter.api;

    exports dev.bellows.eval;
    exports dev.bellows.eval.junit;
    exports dev.bellows.eval.report;
}
