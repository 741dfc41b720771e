package dev.bellows.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link BellowsConfigurationException} into Spring Boot's "APPLICATION FAILED TO START" report. */
final class BellowsFailureAnalyzer extends AbstractFailureAnalyzer<BellowsConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BellowsConfigurationException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
