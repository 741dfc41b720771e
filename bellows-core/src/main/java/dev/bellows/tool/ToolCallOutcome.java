package dev.bellows.format;

import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolResult;
import java.util.Objects;

/**
 * What became of one call in a {@link ToolChain} batch, for programs (the agent loop): the raw
 * result or the error, and the text the model was shown for it.
 */
public sealed interface ToolCallOutcome {

    /** The call as the model made it. */
    DecodedToolCall call();

    /** What the model reads about this call (inside the call's section of the observation). */
    String text();

    /**
     * The tool ran and returned.
     *
     * @param call   the call
     * @param tool   the tool that ran (say whether it {@linkplain Tool#loopBreaking() ends the loop})
     * @param result its raw result, media included
     * @param text   the result as the model reads it: the rendered output and a note on media
     */
    record Succeeded(ToolCall call, Tool tool, ToolResult<?> result, String text) implements ToolCallOutcome {

        public Succeeded {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * The call could not be run or the tool failed: an undecodable call, an unknown tool,
     * arguments that do not match the schema, or an exception from the tool.
     *
     * @param call  the call ({@link ToolCallError} when it could not be decoded)
     * @param error the message for the model, without stack trace
     * @param cause the exception behind it, or null for a {@link ToolCallError}
     */
    record Failed(DecodedToolCall call, String error, Throwable cause) implements ToolCallOutcome {

        public Failed {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(error, "error");
        }

        @Override
        public String text() {
            return error;
        }
    }

    /**
     * The run was cancelled before this call started, so the tool was not called.
     *
     * @param call the call
     */
    record Cancelled(ToolCall call) implements ToolCallOutcome {

        static final String TEXT = "(not run: cancelled before it started)";

        public Cancelled {
            Objects.requireNonNull(call, "call");
        }

        @Override
        public String text() {
            return TEXT;
        }
    }
}
