package dev.bellows.tool;

import dev.bellows.tool.chain.ToolChain;
import java.util.Objects;

/**
 * What became of one tool call: the raw result or the error, and the text the model reads
 * about it. A {@link ToolChain} gives one per call ({@link Succeeded}, {@link Failed},
 * {@link Cancelled}); the agent loop's interceptors and approvals add {@link Denied} (a person
 * said no) and {@link Deferred} (the call waits for a decision or a result from outside the
 * run).
 */
public sealed interface ToolCallOutcome {

    /** The call as the model made it. */
    DecodedToolCall call();

    /** What the model reads about this call (inside the call's section of the observation). */
    String text();

    /**
     * The tool ran and returned.
     *
     * @param call   the call, with the arguments the tool was given
     * @param result its raw result, media and effect included
     * @param text   the result as the model reads it: the rendered output and a note on media
     */
    record Succeeded(ToolCall call, ToolResult<?> result, String text) implements ToolCallOutcome {

        public Succeeded {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(text, "text");
        }

        /** What the result does to the loop. */
        public ToolEffect effect() {
            return result.effect();
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

    /**
     * A person denied the call, so the tool was not called; the model reads that, with the
     * reason when one was given.
     *
     * @param call   the call
     * @param reason why, in the person's words; empty when none was given
     */
    record Denied(ToolCall call, String reason) implements ToolCallOutcome {

        public Denied {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String text() {
            return reason.isBlank() ? "the user denied this call (it did not run)"
                    : "the user denied this call (it did not run): " + reason.strip();
        }
    }

    /**
     * The call waits: for a person's decision, or for its result from outside the run (a tool
     * the client of a server carries out). The run stops with it; a resume answers it.
     *
     * @param call the call
     */
    record Deferred(ToolCall call) implements ToolCallOutcome {

        public Deferred {
            Objects.requireNonNull(call, "call");
        }

        @Override
        public String text() {
            return "(waiting)";
        }
    }
}
