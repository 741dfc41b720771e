package dev.bellows.event;

import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps secrets out of the deltas of a run's events written out ({@code bellows run --output
 * jsonl}, an evaluation's events files): a secret the model writes in
 * pieces ({@code sk-}, {@code abc}, ...) is in no single delta, so redacting each line alone lets
 * it through, reassembled by whoever reads them. Each stream (the message, the thinking, a tool
 * call's text) gets its own {@link Secrets#streaming()}: a delta's end that could begin a secret
 * is held back (never more than the longest secret) and given, redacted, with the next delta or
 * just before the stream's end event. A delta left empty is not written. Not thread-safe: the
 * events of one run arrive in order.
 */
public final class StreamRedaction {

    private Secrets.Streaming message = Secrets.streaming();
    private Secrets.Streaming thinking = Secrets.streaming();
    private Secrets.Streaming toolCall = Secrets.streaming();
    /** The chunk of the last delta of each stream, for the held-back text written at its end. */
    private int messageChunk;
    private int thinkingChunk;
    private int toolCallChunk;

    /** A redaction for one run's events, from its first. */
    public StreamRedaction() {
    }

    /** The events to write in place of {@code event}: itself, its delta redacted, or none. */
    public List<AgentEvent> apply(AgentEvent event) {
        List<AgentEvent> out = new ArrayList<>(2);
        switch (event) {
            case StreamEvent.MessageStart start -> message = Secrets.streaming();
            case StreamEvent.ThinkingStart start -> thinking = Secrets.streaming();
            case StreamEvent.ToolCallStart start -> toolCall = Secrets.streaming();
            case StreamEvent.MessageContent delta -> {
                messageChunk = delta.chunk();
                String shown = message.next(delta.content());
                if (!shown.isEmpty()) {
                    out.add(new StreamEvent.MessageContent(delta.chunk(), shown));
                }
                return out;
            }
            case StreamEvent.ThinkingContent delta -> {
                thinkingChunk = delta.chunk();
                String shown = thinking.next(delta.content());
                if (!shown.isEmpty()) {
                    out.add(new StreamEvent.ThinkingContent(delta.chunk(), shown));
                }
                return out;
            }
            case StreamEvent.ToolCallContent delta -> {
                toolCallChunk = delta.chunk();
                String shown = toolCall.next(delta.content());
                if (!shown.isEmpty()) {
                    out.add(new StreamEvent.ToolCallContent(delta.chunk(), shown));
                }
                return out;
            }
            case StreamEvent.MessageEnd end -> flushMessage(out);
            case StreamEvent.ThinkingEnd end -> flushThinking(out);
            case StreamEvent.ToolCallEnd end -> flushToolCall(out);
            case StreamEvent.Complete complete -> flushAll(out);     // a stream cut short: what it held
            case LoopEvent.LoopEnd end -> flushAll(out);
            default -> {
            }
        }
        out.add(event);
        return out;
    }

    private void flushAll(List<AgentEvent> out) {
        flushThinking(out);
        flushMessage(out);
        flushToolCall(out);
    }

    private void flushMessage(List<AgentEvent> out) {
        String rest = message.flush();
        if (!rest.isEmpty()) {
            out.add(new StreamEvent.MessageContent(messageChunk, rest));
        }
    }

    private void flushThinking(List<AgentEvent> out) {
        String rest = thinking.flush();
        if (!rest.isEmpty()) {
            out.add(new StreamEvent.ThinkingContent(thinkingChunk, rest));
        }
    }

    private void flushToolCall(List<AgentEvent> out) {
        String rest = toolCall.flush();
        if (!rest.isEmpty()) {
            out.add(new StreamEvent.ToolCallContent(toolCallChunk, rest));
        }
    }
}
