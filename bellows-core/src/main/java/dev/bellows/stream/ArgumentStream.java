package dev.bellows.stream;

import dev.bellows.stream.internal.JsonArgumentScanner;
import tools.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Reads one tool call's arguments, a JSON object streamed as text in pieces of any size (an
 * OpenAI {@code tool_calls} argument delta, an Anthropic {@code input_json_delta}), and reports
 * each member of the object the moment its value is complete, by the rules of
 * docs/stream-format.md, "Argument values as they complete": a string at its closing quote, an
 * object or array at its closing bracket, {@code true} / {@code false} / {@code null} at their
 * last letter, a number at the first character after it. A value that is not valid JSON is never
 * reported (nor anything after it).
 *
 * <pre>{@code
 * ArgumentStream arguments = new ArgumentStream((name, value) -> System.out.println(name + " = " + value));
 * arguments.feed("{\"path\": \"a.t");
 * arguments.feed("xt\", \"n\": 12");   // prints: path = "a.txt"
 * arguments.feed("}");                  // prints: n = 12
 * }</pre>
 *
 * <p>Each character is read once and only the value being completed is kept, so the cost is
 * linear in the arguments' length whatever the pieces. Not thread-safe: one per call, fed in order.
 */
public final class ArgumentStream {

    private final JsonArgumentScanner scanner;

    /** @param onArgument told each argument's name and JSON value as it completes (a new node each time) */
    public ArgumentStream(BiConsumer<String, JsonNode> onArgument) {
        Objects.requireNonNull(onArgument, "onArgument");
        this.scanner = JsonArgumentScanner.forArguments(onArgument::accept);
    }

    /** Reads the next piece of the arguments' text, reporting the arguments it completes. */
    public void feed(CharSequence piece) {
        if (!scanner.isDone()) {
            scanner.feed(piece, 0, piece.length());
        }
    }

    /** Whether nothing more can be reported: the object ended, or its text is not JSON. */
    public boolean isDone() {
        return scanner.isDone();
    }
}
