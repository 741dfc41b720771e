package dev.bellows.spring;

/**
 * The {@code bellows.*} properties cannot make an agent: what is wrong, and what to set.
 * Spring Boot shows the two apart at startup ({@link BellowsFailureAnalyzer}), without a
 * stack trace.
 */
final class BellowsConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    BellowsConfigurationException(String description, String action) {
        super(description + " " + action);
        this.description = description;
        this.action = action;
    }

    String description() {
        return description;
    }

    String action() {
        return action;
    }
}
