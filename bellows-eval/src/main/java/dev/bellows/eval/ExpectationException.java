package dev.bellows.eval;

import java.util.Objects;

/**
 * Thrown by an {@link ExpectationFactory} for a spec it cannot use; the dataset reader turns it
 * into a {@link DatasetException} naming the file, line and field.
 */
public final class ExpectationException extends Exception {

    private final String field;

    /**
     * @param field   the field inside the expectation's value the problem is about ({@code match},
     *                {@code calls[1].name}), or empty for the value as a whole
     * @param problem what is wrong ({@code must be a string})
     */
    public ExpectationException(String field, String problem) {
        super(problem);
        this.field = Objects.requireNonNull(field, "field");
    }

    /** A problem with the value as a whole. */
    public ExpectationException(String problem) {
        this("", problem);
    }

    public String field() {
        return field;
    }
}
