package dev.bellows.tool;

import java.util.Objects;

/**
 * One way a tool's arguments do not match its schema.
 *
 * @param path    where, as {@code steps[2].status}, or {@code (root)} for the arguments as a whole
 * @param message what is wrong and what was expected, as in {@code expected integer, got "abc"}
 */
public record ArgumentProblem(String path, String message) {

    /** The path of the arguments object itself. */
    public static final String ROOT = "(root)";

    public ArgumentProblem {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path must not be empty; use ArgumentProblem.ROOT for the root");
        }
    }

    /** {@code "steps[2].status": message}, or {@code (root): message}. */
    @Override
    public String toString() {
        return (path.equals(ROOT) ? ROOT : "\"" + path + "\"") + ": " + message;
    }
}
