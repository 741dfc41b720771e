package dev.bellows.temporal.internal;

import dev.bellows.secret.Secrets;
import dev.bellows.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;

/**
 * An answer's frames with the worker's secrets ({@link Secrets}: its API key, its MCP servers'
 * {@code env} and {@code headers}) redacted, before the model-call activity records them or
 * puts them in a heartbeat: a model that repeats a key would otherwise put it in the workflow's
 * history and every follower's output, and a follower cannot know the worker's secrets. Text,
 * reasoning and each tool call's arguments are redacted as streams ({@link Secrets#streaming()}),
 * so a secret split between frames is caught; what may begin one is held back until the next
 * frame of the same kind, or until a frame of another kind comes (a secret does not span two
 * kinds). The live events and the recorded answer are read from these same frames, so they
 * agree. Not thread-safe: one per answer.
 */
final class RedactedChunks {

    private Secrets.Streaming stream;   // the kind of frame whose text may be held back
    private StreamChunk kind;           // a frame of that kind (a tool call's: its index)

    /** The frames to record for {@code chunk}: none while its text is held back, or more than one. */
    List<StreamChunk> next(StreamChunk chunk) {
        List<StreamChunk> out = new ArrayList<>(2);
        if (!sameKind(chunk)) {
            flushInto(out);
        }
        switch (chunk) {
            case StreamChunk.Text text -> {
                String shown = streaming(chunk).next(text.text());
                if (!shown.isEmpty()) {
                    out.add(new StreamChunk.Text(shown));
                }
            }
            case StreamChunk.Reasoning reasoning -> {
                String shown = streaming(chunk).next(reasoning.text());
                if (!shown.isEmpty()) {
                    out.add(new StreamChunk.Reasoning(shown));
                }
            }
            case StreamChunk.ToolCallDelta call -> {
                String shown = streaming(chunk).next(call.arguments());
                // The piece that starts a call carries its id and name: it goes on even with no arguments yet.
                if (!shown.isEmpty() || call.id() != null || call.name() != null) {
                    out.add(new StreamChunk.ToolCallDelta(call.index(), call.id(), call.name() == null ? null
                            : Secrets.redact(call.name()), shown));
                }
            }
            default -> out.add(chunk);
        }
        return out;
    }

    /** What is still held back, at the end of the answer. */
    List<StreamChunk> finish() {
        List<StreamChunk> out = new ArrayList<>(1);
        flushInto(out);
        return out;
    }

    private Secrets.Streaming streaming(StreamChunk chunk) {
        if (stream == null) {
            stream = Secrets.streaming();
            kind = chunk;
        }
        return stream;
    }

    private boolean sameKind(StreamChunk chunk) {
        return kind == null || switch (chunk) {
            case StreamChunk.Text t -> kind instanceof StreamChunk.Text;
            case StreamChunk.Reasoning r -> kind instanceof StreamChunk.Reasoning;
            case StreamChunk.ToolCallDelta d -> kind instanceof StreamChunk.ToolCallDelta k && k.index() == d.index();
            default -> false;
        };
    }

    private void flushInto(List<StreamChunk> out) {
        if (stream == null) {
            return;
        }
        String rest = stream.flush();
        if (!rest.isEmpty()) {
            out.add(switch (kind) {
                case StreamChunk.Text t -> new StreamChunk.Text(rest);
                case StreamChunk.Reasoning r -> new StreamChunk.Reasoning(rest);
                case StreamChunk.ToolCallDelta d -> new StreamChunk.ToolCallDelta(d.index(), null, null, rest);
                default -> throw new IllegalStateException("no text is held back for " + kind);
            });
        }
        stream = null;
        kind = null;
    }
}
