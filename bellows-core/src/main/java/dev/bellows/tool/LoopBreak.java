package dev.bellows.tool;

import java.util.List;
import java.util.Objects;

/**
 * The output of a loop-breaking tool ({@link Tool#loopBreaking()}): the text that becomes the
 * agent's result, so that the loop ends the same way whichever such tool was called. The loop
 * does not need to know the built-ins: after a loop-breaking tool's call, a {@code LoopBreak}
 * output says why the loop ended ({@link #toolName()}, the {@code loop_end} reason for the
 * built-ins) and what to answer ({@link #text()}).
 *
 * <pre>{@code
 * if (tool.loopBreaking() && result.output() instanceof LoopBreak end) {
 *     return finish(end.toolName(), end.text());
 * }
 * }</pre>
 *
 * A user's own loop-breaking tool returns one too.
 *
 * @param toolName    the tool that ended the loop, such as {@code task_completion}
 * @param text        the result: the answer, the question, or the reply
 * @param suggestions answers the user may pick from ({@code ask_question}); usually empty
 */
public record LoopBreak(String toolName, String text, List<String> suggestions) {

    public LoopBreak {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(text, "text");
        suggestions = List.copyOf(Objects.requireNonNull(suggestions, "suggestions"));
    }

    /** A loop break without suggestions. */
    public static LoopBreak of(String toolName, String text) {
        return new LoopBreak(toolName, text, List.of());
    }
}
