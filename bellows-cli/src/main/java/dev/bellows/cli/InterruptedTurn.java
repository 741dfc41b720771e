package dev.bellows.cli;

import dev.bellows.agent.AgentListener;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * What a turn cancelled with Ctrl-C leaves in the conversation, as chat programs do (Claude
 * Code keeps the request with "[Request interrupted by user]", aider the partial reply with
 * "^C KeyboardInterrupt"): the request stays, so "go on" or "no, do it this way" makes sense
 * next, and the model is told the turn did not finish.
 *
 * <p>The loop itself stores only whole iterations (a cancelled model call or tool batch never
 * reaches memory). On a cancel this adds one turn: the user's request (when no iteration of
 * the run was stored, which would hold it already), then one assistant message with the text
 * the interrupted answer had streamed so far (thinking and tool calls left out) followed by
 * {@link #MARKER}. It ends with the assistant, so user and assistant still alternate, as the
 * strict chat templates of some open models require.
 *
 * <p>Listen to the run with it ({@link #onEvent}): it adds the turn when it sees the run's
 * {@code loop_end} with {@code cancelled}, which a stored session's run commits after its
 * listeners, so the interrupted turn is stored in the same transaction as the iterations the
 * run stored before the cancel, or not at all.
 */
final class InterruptedTurn implements AgentListener {

    /** Ends the assistant message of an interrupted turn: what the model reads about it. */
    static final String MARKER = "[interrupted: the user pressed Ctrl-C before this answer was finished]";

    private final ConversationMemory memory;
    private final String request;
    private final int turnsBefore;
    /** The message text of the answer now streaming; only the run's thread writes it. */
    private final StringBuilder said = new StringBuilder();

    /** Call before the run starts: the number of turns then tells whether the run stored any. */
    InterruptedTurn(ConversationMemory memory, String request) {
        this.memory = memory;
        this.request = request;
        this.turnsBefore = memory.turns().size();
    }

    @Override
    public void onEvent(AgentEvent event) {
        switch (event) {
            case LoopEvent.IterationStart e -> said.setLength(0);
            case LoopEvent.Retry e -> said.setLength(0); // the broken attempt's text is dropped
            case StreamEvent.MessageContent e -> said.append(e.content());
            case LoopEvent.LoopEnd e when e.reason() == LoopEndReason.CANCELLED -> keep();
            default -> { }
        }
    }

    /** Adds the interrupted turn to memory (at the run's end, so the events are all in). */
    private void keep() {
        List<Message> turn = new ArrayList<>(2);
        if (memory.turns().size() <= turnsBefore) {
            turn.add(Message.user(request));
        }
        String text = said.toString().strip();
        turn.add(Message.assistant(text.isEmpty() ? MARKER : text + "\n\n" + MARKER));
        memory.addTurn(turn);
    }
}
