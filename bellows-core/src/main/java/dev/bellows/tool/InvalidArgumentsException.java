package dev.bellows.tool;

import dev.bellows.tool.internal.SchemaSummary;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A tool's arguments do not match its schema. The message is written for the model, so that
 * it can correct the call in one go: every problem found, each naming its field, then the
 * shape the tool expects in one line:
 *
 * <pre>
 * invalid arguments for get_weather: "unit": expected one of "celsius", "fahrenheit", got "kelvin";
 * "city": required but missing. Expected arguments: {"city": string, "unit"?: "celsius"|"fahrenheit"}
 * </pre>
 * (one line in reality). Programs read {@link #problems()}.
 */
public final class InvalidArgumentsException extends ToolException {

    /** Past this many, the message summarises the rest; the model fixes the first ones first anyway. */
    private static final int MAX_PROBLEMS_IN_MESSAGE = 20;

    private final String toolName;
    private final List<ArgumentProblem> problems;

    /**
     * @param toolName the tool's name for the message, or {@code null} when not known
     * @param problems every problem found; at least one
     * @param expected the expected arguments in one line (see {@link SchemaSummary}), or
     *                 {@code null} to leave it out
     */
    public InvalidArgumentsException(String toolName, List<ArgumentProblem> problems, String expected) {
        super(message(toolName, problems, expected));
        this.toolName = toolName;
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in the order found. */
    public List<ArgumentProblem> problems() {
        return problems;
    }

    /** The tool's name, when the validator was told it. */
    public Optional<String> toolName() {
        return Optional.ofNullable(toolName);
    }

    private static String message(String toolName, List<ArgumentProblem> problems, String expected) {
        Objects.requireNonNull(problems, "problems");
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("an InvalidArgumentsException needs at least one problem");
        }
        StringBuilder message = new StringBuilder("invalid arguments");
        if (toolName != null) {
            message.append(" for ").append(toolName);
        }
        message.append(": ").append(problems.stream().limit(MAX_PROBLEMS_IN_MESSAGE)
                .map(ArgumentProblem::toString).collect(Collectors.joining("; ")));
        if (problems.size() > MAX_PROBLEMS_IN_MESSAGE) {
            message.append("; and ").append(problems.size() - MAX_PROBLEMS_IN_MESSAGE).append(" more");
        }
        message.append('.');
        if (expected != null) {
            message.append(" Expected arguments: ").append(expected);
        }
        return message.toString();
    }
}
