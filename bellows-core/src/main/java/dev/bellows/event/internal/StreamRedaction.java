package dev.bellows.event.internal;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

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

    /** Each sub-agent run's own streams, by the path of agents and calls that leads to it. */
    private final java.util.Map<String, StreamRedaction> subAgents = new java.util.HashMap<>();

    /** The events to write in place of {@code event}: itself, its delta redacted, or none. */
    public List<AgentEvent> apply(AgentEvent event) {
        List<AgentEvent> out = new ArrayList<>(2);
        apply(event, out::add);
        return out;
    }

    /**
     * {@link #apply(AgentEvent)} given to {@code out} one by one, without a list per event (a
     * writer of every event of many runs); an event or delta nothing was held back from or
     * redacted in is given as it came, not copied.
     */
    public void apply(AgentEvent event, Consumer<AgentEvent> out) {
        switch (event) {
            case StreamEvent.MessageContent delta -> {
                messageChunk = delta.chunk();
                String shown = message.next(delta.content());
                if (!shown.isEmpty()) {
                    out.accept(shown == delta.content() ? delta : new StreamEvent.MessageContent(delta.chunk(), shown));
                }
                return;
            }
            case StreamEvent.ToolCallContent delta -> {
                toolCallChunk = delta.chunk();
                String shown = toolCall.next(delta.content());
                if (!shown.isEmpty()) {
                    out.accept(shown == delta.content() ? delta : new StreamEvent.ToolCallContent(delta.chunk(), shown));
                }
                return;
            }
            case StreamEvent.ThinkingContent delta -> {
                thinkingChunk = delta.chunk();
                String shown = thinking.next(delta.content());
                if (!shown.isEmpty()) {
                    out.accept(shown == delta.content() ? delta : new StreamEvent.ThinkingContent(delta.chunk(), shown));
                }
                return;
            }
            case LoopEvent.SubAgentEvent nested -> {
                String path = path(nested);
                subAgents.computeIfAbsent(path, key -> new StreamRedaction())
                        .apply(nested.innermost(), shown -> out.accept(rewrapped(nested, shown)));
                if (nested.innermost() instanceof LoopEvent.LoopEnd) {
                    subAgents.remove(path);        // that run is over: a later call of the agent starts afresh
                }
                return;
            }
            case StreamEvent.MessageStart start -> message = Secrets.streaming();
            case StreamEvent.ThinkingStart start -> thinking = Secrets.streaming();
            case StreamEvent.ToolCallStart start -> toolCall = Secrets.streaming();
            case StreamEvent.MessageEnd end -> flushMessage(out);
            case StreamEvent.ThinkingEnd end -> flushThinking(out);
            case StreamEvent.ToolCallEnd end -> flushToolCall(out);
            case StreamEvent.Complete complete -> flushAll(out);     // a stream cut short: what it held
            case LoopEvent.LoopEnd end -> flushAll(out);
            default -> {
            }
        }
        out.accept(event);
    }

    /** The agents and calls that lead to a sub-agent's event, as one key. */
    private static String path(LoopEvent.SubAgentEvent nested) {
        StringBuilder path = new StringBuilder();
        for (AgentEvent level = nested; level instanceof LoopEvent.SubAgentEvent sub; level = sub.event()) {
            path.append(sub.agent()).append('\u0000').append(sub.parentCallId()).append('\u0000');
        }
        return path.toString();
    }

    /** {@code nested} with {@code innermost} in place of its innermost event. */
    private static LoopEvent.SubAgentEvent rewrapped(LoopEvent.SubAgentEvent nested, AgentEvent innermost) {
        return new LoopEvent.SubAgentEvent(nested.agent(), nested.parentCallId(),
                nested.event() instanceof LoopEvent.SubAgentEvent deeper ? rewrapped(deeper, innermost) : innermost);
    }

    private void flushAll(Consumer<AgentEvent> out) {
        flushThinking(out);
        flushMessage(out);
        flushToolCall(out);
    }

    private void flushMessage(Consumer<AgentEvent> out) {
        String rest = message.flush();
        if (!rest.isEmpty()) {
            out.accept(new StreamEvent.MessageContent(messageChunk, rest));
        }
    }

    private void flushThinking(Consumer<AgentEvent> out) {
        String rest = thinking.flush();
        if (!rest.isEmpty()) {
            out.accept(new StreamEvent.ThinkingContent(thinkingChunk, rest));
        }
    }

    private void flushToolCall(Consumer<AgentEvent> out) {
        String rest = toolCall.flush();
        if (!rest.isEmpty()) {
            out.accept(new StreamEvent.ToolCallContent(toolCallChunk, rest));
        }
    }
}
