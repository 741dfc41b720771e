package dev.bellows.eval;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A dataset that cannot be used: the message names the file, the line and the field, e.g.
 * {@code cases.jsonl:3: expect.tools.match: must be strict, unordered, subset or superset, got "any"}.
 */
public final class DatasetException extends Exception {

    private final Path file;
    private final int line;
    private final String field;
    private final String problem;

    /**
     * @param field the field's path in the case ({@code expect.tools.match}), or empty for the
     *              case (or line) as a whole
     */
    public DatasetException(Path file, int line, String field, String problem) {
        super(file + ":" + line + ": " + (field.isEmpty() ? "" : field + ": ") + problem);
        this.file = Objects.requireNonNull(file, "file");
        this.line = line;
        this.field = Objects.requireNonNull(field, "field");
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    public Path file() {
        return file;
    }

    /** The line, from 1. */
    public int line() {
        return line;
    }

    /** The field's path in the case, dot-separated with indexes in brackets; empty for the case as a whole. */
    public String field() {
        return field;
    }

    /** What is wrong, without the place. */
    public String problem() {
        return problem;
    }
}
