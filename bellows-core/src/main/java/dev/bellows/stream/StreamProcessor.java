package dev.bellows.stream;

import dev.bellows.event.StreamEvent;
import dev.bellows.stream.internal.BlockScanner;
import dev.bellows.stream.internal.DialectSpec;
import dev.bellows.stream.internal.EventAssembler;
import dev.bellows.stream.internal.MarkerScanner;
import dev.bellows.stream.internal.ParameterSchemas;
import dev.bellows.stream.internal.TagScanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns a model's streamed answer into {@link StreamEvent}s as the chunks arrive, exactly as
 * docs/stream-format.md says: thinking and tool blocks from inline tags and from
 * provider-typed thinking, the tool name the moment it is known, decoded tool calls, and
 * the aggregated {@link StreamEvent.Complete} at the end.
 *
 * <p>Drive it chunk by chunk:
 * <pre>{@code
 * StreamProcessor processor = new StreamProcessor(StreamOptions.defaults(), event -> {
 *     if (event instanceof StreamEvent.ToolCallName name) {
 *         System.out.println("calling " + name.toolName() + "...");
 *     }
 * });
 * for (StreamChunk chunk : provider) {
 *     processor.accept(chunk);
 * }
 * StreamEvent.Complete result = processor.finish();
 * }</pre>
 * or all at once with {@link #parse(Iterable, StreamOptions)}.
 *
 * <p>The result does not depend on where the chunks were cut (only the {@code chunk} index
 * of each event does), and the work per chunk is proportional to its length plus the events
 * it emits. Events are delivered synchronously on the calling thread. Not thread-safe: one
 * processor per stream, fed from one thread at a time.
 */
public final class StreamProcessor {

    private final StreamOptions options;
    private final EventAssembler events;
    private final BlockScanner scanner;
    private int chunks;
    private boolean started;
    private boolean finished;

    public StreamProcessor(StreamOptions options, StreamListener listener) {
        this.options = Objects.requireNonNull(options, "options");
        DialectSpec dialect = DialectSpec.of(options.dialect());
        ParameterSchemas schemas = options.toolSchemas().parameters();
        this.events = new EventAssembler(Objects.requireNonNull(listener, "listener"), dialect.body(), schemas,
                options.argumentEvents());
        this.scanner = dialect.usesTags() ? new TagScanner(options, options.lowerCaseTagNames(), events)
                : new MarkerScanner(dialect, schemas, options, events);
    }

    /**
     * Processes one frame, emitting every event it decides before returning. Text, reasoning,
     * a native tool-call delta and a thinking signature each count as one chunk; a
     * {@link StreamChunk.ResponseInfo} or {@link StreamChunk.Usage} frame counts as none and
     * changes nothing.
     *
     * @throws IllegalArgumentException for a {@link StreamChunk.Restart}: the answer starts over,
     *                                  so its new attempt needs a new processor
     */
    public void accept(StreamChunk chunk) {
        Objects.requireNonNull(chunk, "chunk");
        if (finished) {
            throw new IllegalStateException("the stream has finished: create a new StreamProcessor for the next one");
        }
        switch (chunk) {
            case StreamChunk.Text text -> {
                start();
                if (!text.text().isEmpty()) {        // an empty chunk changes nothing, but it still counts
                    events.endProviderThinking();
                    scanner.scan(text.text());
                    events.flush();
                }
            }
            case StreamChunk.Reasoning reasoning -> {
                start();
                if (!reasoning.text().isEmpty()) {
                    if (scanner.inBlock()) {
                        events.deferThinking(reasoning.text());
                    } else {
                        scanner.releaseOpenTagCandidate();
                        events.providerThinking(reasoning.text());
                    }
                    events.flush();
                }
            }
            case StreamChunk.ToolCallDelta delta -> {
                start();
                // A native tool call: not text; outside tag blocks it ends the message and thinking.
                if (!scanner.inBlock()) {
                    scanner.releaseOpenTagCandidate();
                    events.nativeToolCall();
                }
                events.flush();
            }
            case StreamChunk.ThinkingSignature signature -> {
                start();                             // nothing to read
                events.flush();
            }
            case StreamChunk.ResponseInfo info -> {
                return;                              // about the answer, not part of it
            }
            case StreamChunk.Usage usage -> {
                return;
            }
            case StreamChunk.Restart restart -> throw new IllegalArgumentException("the answer restarts (attempt "
                    + restart.attempt() + "): read the new attempt with a new StreamProcessor");
        }
        chunks++;
    }

    /** A chunk of the answer begins: the chunk index its events carry. */
    private void start() {
        startIfNeeded();
        events.chunk = chunks;
    }

    /**
     * Ends the stream: releases held-back text, ends any open block (an unterminated tool
     * block becomes an error call) and emits {@link StreamEvent.Complete}, which it returns.
     */
    public StreamEvent.Complete finish() {
        if (finished) {
            throw new IllegalStateException("finish() was already called");
        }
        startIfNeeded();
        finished = true;
        events.chunk = chunks;
        scanner.finish();
        return events.finish();
    }

    /** The number of chunks accepted so far. */
    public int chunkCount() {
        return chunks;
    }

    /** Processes a whole stream and returns all its events, {@code complete} last. */
    public static List<StreamEvent> parse(Iterable<StreamChunk> chunks, StreamOptions options) {
        List<StreamEvent> out = new ArrayList<>();
        StreamProcessor processor = new StreamProcessor(options, out::add);
        for (StreamChunk chunk : chunks) {
            processor.accept(chunk);
        }
        processor.finish();
        return out;
    }

    /** With {@code thinking-open}, the stream starts inside a thinking block: its start is the first event. */
    private void startIfNeeded() {
        if (started) {
            return;
        }
        started = true;
        if (options.thinkingOpen()) {
            events.chunk = 0;
            events.blockOpened(TagScanner.BlockKind.THINKING, "think", java.util.Map.of());
            scanner.enterOpenThinkingBlock();
        }
    }
}
