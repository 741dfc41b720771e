package dev.bellows.agent;

import dev.bellows.provider.Message;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.DecodedToolCall;
import java.util.List;

/**
 * The one piece that differs between the ways of calling tools: reads one streamed answer,
 * chunk by chunk, emitting its stream events to the run as they happen, and says at the end
 * what the answer asks the loop to do. One reader per attempt: a retry starts a new one, so
 * nothing of a broken attempt survives.
 */
interface AnswerReader extends AgentMachine.Reader {

    @Override
    void accept(StreamChunk chunk);

    /** The complete answer, read once the last chunk has come. */
    Reading read();

    /**
     * The machine's input for the complete answer. The reader is the machine's {@link
     * AgentMachine.Reader} itself, not wrapped in one: every chunk of every answer goes through
     * it, and a frame less on that path leaves the JIT room to inline the rest.
     */
    @Override
    default MachineInput finish() {
        return new AgentMachine.Answered(read());
    }

    /**
     * A complete answer.
     *
     * @param assistant the answer as it goes into memory and back to the model
     * @param step      what the loop does next
     * @param text      the answer's message text (thinking and tool calls left out), a plain chat's result
     */
    record Reading(Message assistant, Step step, String text) {
    }

    /** What an answer asks the loop to do. */
    sealed interface Step {

        /** Run these calls in order; {@code note}, when not empty, follows their observation. */
        record Act(List<DecodedToolCall> calls, String note) implements Step {
        }

        /** The task is done: end the loop {@code task_completion} with this answer. */
        record Finish(String answer) implements Step {
        }

        /** Calls were written but none could be read: each error goes back as it is. */
        record Unreadable(List<String> errors) implements Step {
        }

        /** No action: {@code no_tool_call}; {@code error} counts, {@code reply} goes to the model. */
        record NoAction(String error, String reply) implements Step {
        }
    }
}
