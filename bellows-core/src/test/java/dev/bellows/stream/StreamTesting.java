package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import dev.bellows.event.StreamEvent.MessageContent;
import dev.bellows.event.StreamEvent.MessageEnd;
import dev.bellows.event.StreamEvent.MessageStart;
import dev.bellows.event.StreamEvent.ThinkingContent;
import dev.bellows.event.StreamEvent.ThinkingEnd;
import dev.bellows.event.StreamEvent.ThinkingStart;
import dev.bellows.event.StreamEvent.ToolCallArgument;
import dev.bellows.event.StreamEvent.ToolCallContent;
import dev.bellows.event.StreamEvent.ToolCallEnd;
import dev.bellows.event.StreamEvent.ToolCallName;
import dev.bellows.event.StreamEvent.ToolCallStart;
import dev.bellows.event.ThinkingBlock;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A small DSL for stream-contract tests.
 *
 * <ul>
 *   <li>build chunks: {@link #msg(String)}, {@link #think(String)}, {@link #chunks(String...)};</li>
 *   <li>run the processor: {@link #run(StreamOptions, List)} runs it twice (listener API chunk by
 *       chunk, and {@link StreamProcessor#parse}), checks both agree, that every event carries
 *       the index of the chunk during which it was emitted, and that the events are
 *       {@linkplain #assertWellFormed well formed};</li>
 *   <li>normalise: {@link #mergeWithinChunk} (how one chunk's text is split into deltas is free)
 *       and {@link #mergeAcrossChunks} (for chunking invariance: one delta per block, no chunk
 *       indices);</li>
 *   <li>render compactly, one event a line, so a failing assertion shows a readable diff:
 *       <pre>
 *   0 thinking_start thinking {}
 *   0 thinking_content "x"
 *   1 tool_call_name read_file
 *   2 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
 *   2 tool_call_end error
 *   3 complete "msg" thinking=[thinking {} "x"] tool_calls=[error]
 *       </pre>
 *       Strings are shown between double quotes with only CR, LF and TAB escaped ({@code \r},
 *       {@code \n}, {@code \t}), so JSON inside content stays readable. A tool call's error is
 *       shown as {@code error} whatever its wording (the wording is free); that it is not blank
 *       and carries the block's content is checked by {@link #assertWellFormed}. For the same
 *       reason {@code tool_call_end} does not show its content: it must equal the block's deltas
 *       concatenated, which is checked for every run.</li>
 * </ul>
 */
final class StreamTesting {

    /** Chunk index used by {@link #mergeAcrossChunks}: rendered without an index. */
    static final int NO_CHUNK = -1;

    private StreamTesting() {
    }

    // ------------------------------------------------------------------ chunks

    static StreamChunk msg(String text) {
        return StreamChunk.message(text);
    }

    static StreamChunk think(String text) {
        return StreamChunk.thinking(text);
    }

    /** Message chunks, one per argument. */
    static List<StreamChunk> chunks(String... messageTexts) {
        return Arrays.stream(messageTexts).map(StreamChunk::message).toList();
    }

    /** Writes JSON readably in Java source: every {@code '} becomes {@code "}. */
    static String dq(String text) {
        return text.replace('\'', '"');
    }

    /**
     * Runs {@code <tool>content</tool>} as one chunk and sums up the decoded call as
     * {@code server/tool {arguments}}, or {@code error}.
     */
    static String decoded(String toolContent) {
        List<StreamEvent> events = run("<tool>" + toolContent + "</tool>");
        List<DecodedToolCall> calls = complete(events).toolCalls();
        assertThat(calls).as("tool calls of " + renderLines(events)).hasSize(1);
        return switch (calls.getFirst()) {
            case ToolCall c -> c.serverName() + "/" + c.toolName() + " " + c.arguments();
            case ToolCallError e -> "error";
        };
    }

    static StreamOptions defaults() {
        return StreamOptions.defaults();
    }

    static StreamOptions thinkingOpen() {
        return StreamOptions.builder().thinkingOpen(true).build();
    }

    // ------------------------------------------------------------------ running

    /** Runs message chunks with the default options; see {@link #run(StreamOptions, List)}. */
    static List<StreamEvent> run(String... messageChunks) {
        return run(defaults(), chunks(messageChunks));
    }

    static List<StreamEvent> run(List<StreamChunk> chunks) {
        return run(defaults(), chunks);
    }

    /**
     * Runs the chunks through the listener API and through {@code parse}, and checks: both give
     * the same events; each event emitted during {@code accept(chunk i)} carries {@code i}, each
     * emitted during {@code finish()} carries the number of chunks (events emitted before the
     * first chunk carry 0); {@code finish()} returns the last event, a {@code complete}; the
     * events are {@linkplain #assertWellFormed well formed}.
     */
    static List<StreamEvent> run(StreamOptions options, List<StreamChunk> chunks) {
        List<StreamEvent> streamed = new ArrayList<>();
        int[] phase = {0};
        List<String> misplaced = new ArrayList<>();
        StreamProcessor processor = new StreamProcessor(options, event -> {
            if (event.chunk() != phase[0]) {
                misplaced.add("emitted during " + (phase[0] == chunks.size() ? "finish()" : "chunk " + phase[0])
                        + " but carries chunk " + event.chunk() + ": " + render(event));
            }
            streamed.add(event);
        });
        for (int i = 0; i < chunks.size(); i++) {
            phase[0] = i;
            processor.accept(chunks.get(i));
        }
        phase[0] = chunks.size();
        Complete returned = processor.finish();

        assertThat(misplaced).as("chunk index of each event = the chunk during which it was emitted").isEmpty();
        assertThat(streamed).as("events").isNotEmpty();
        assertThat(streamed.getLast()).as("finish() returns the last event, complete").isEqualTo(returned);

        List<StreamEvent> parsed = StreamProcessor.parse(chunks, options);
        assertThat(renderLines(parsed)).as("parse() gives the same events as the listener API")
                .isEqualTo(renderLines(streamed));

        assertWellFormed(streamed, chunks.size(), options);
        return streamed;
    }

    /**
     * Asserts that the events, with deltas merged within each chunk, are exactly
     * {@code expected} (one rendered event a line, as in a text block).
     */
    static void assertEvents(List<StreamEvent> events, String expected) {
        String actual = renderLines(mergeWithinChunk(events));
        assertThat(actual).isEqualTo(expected.strip());
    }

    static void expect(String singleMessageChunk, String expected) {
        assertEvents(run(singleMessageChunk), expected);
    }

    static void expect(List<StreamChunk> chunks, String expected) {
        assertEvents(run(defaults(), chunks), expected);
    }

    static void expect(StreamOptions options, List<StreamChunk> chunks, String expected) {
        assertEvents(run(options, chunks), expected);
    }

    /**
     * Runs the chunks with {@code argument-events} off and on and checks that the option only adds
     * {@code tool_call_argument} events: every other event, chunk indices included, is the same.
     *
     * @return the events with the option on
     */
    static List<StreamEvent> assertArgumentEventsOnlyAdd(StreamOptions options, List<StreamChunk> chunks) {
        List<StreamEvent> off = run(options.withArgumentEvents(false), chunks);
        List<StreamEvent> on = run(options.withArgumentEvents(true), chunks);
        assertThat(renderLines(on.stream().filter(e -> !(e instanceof ToolCallArgument)).toList()))
                .as("the events with argument-events, its own left out, are those without it")
                .isEqualTo(renderLines(off));
        return on;
    }

    static Complete complete(List<StreamEvent> events) {
        return (Complete) events.getLast();
    }

    static ToolCall onlyToolCall(List<StreamEvent> events) {
        List<DecodedToolCall> calls = complete(events).toolCalls();
        assertThat(calls).hasSize(1);
        assertThat(calls.getFirst()).isInstanceOf(ToolCall.class);
        return (ToolCall) calls.getFirst();
    }

    static ToolCallError onlyToolCallError(List<StreamEvent> events) {
        List<DecodedToolCall> calls = complete(events).toolCalls();
        assertThat(calls).hasSize(1);
        assertThat(calls.getFirst()).isInstanceOf(ToolCallError.class);
        return (ToolCallError) calls.getFirst();
    }

    // ------------------------------------------------------------------ normalising

    /**
     * Merges consecutive content deltas of the same block emitted during the same chunk, and
     * moves a {@code tool_call_name} and {@code tool_call_argument} events in front of the tool
     * content of their chunk, in their order (the contract lets them sit anywhere among the deltas
     * of the chunk that completed them).
     */
    static List<StreamEvent> mergeWithinChunk(List<StreamEvent> events) {
        return merge(events, false);
    }

    /**
     * Merges all deltas of each block into one, whatever the chunk, puts a {@code tool_call_name}
     * directly after its {@code tool_call_start} and the {@code tool_call_argument} events, in their
     * order, in front of the block's content, and drops chunk indices
     * (they become {@link #NO_CHUNK}). Equal results for two chunkings of the same text mean the
     * output did not depend on where the chunks were cut.
     */
    static List<StreamEvent> mergeAcrossChunks(List<StreamEvent> events) {
        return merge(events, true);
    }

    private static List<StreamEvent> merge(List<StreamEvent> events, boolean acrossChunks) {
        List<StreamEvent> out = new ArrayList<>();
        for (StreamEvent raw : events) {
            StreamEvent event = acrossChunks ? withChunk(raw, NO_CHUNK) : raw;
            if (acrossChunks && event instanceof ToolCallName) { // its place among the block's events is free
                int at = out.size();
                while (at > 0 && !(out.get(at - 1) instanceof ToolCallStart)) {
                    at--;
                }
                out.add(at, event);
                continue;
            }
            if (event instanceof ToolCallName || event instanceof ToolCallArgument) {
                int at = out.size();
                while (at > 0 && out.get(at - 1) instanceof ToolCallContent c && c.chunk() == event.chunk()) {
                    at--;
                }
                out.add(at, event);
                continue;
            }
            StreamEvent last = out.isEmpty() ? null : out.getLast();
            StreamEvent merged = last == null || last.chunk() != event.chunk() ? null : switch (event) {
                case MessageContent m when last instanceof MessageContent p ->
                        new MessageContent(p.chunk(), p.content() + m.content());
                case ThinkingContent t when last instanceof ThinkingContent p ->
                        new ThinkingContent(p.chunk(), p.content() + t.content());
                case ToolCallContent t when last instanceof ToolCallContent p ->
                        new ToolCallContent(p.chunk(), p.content() + t.content());
                default -> null;
            };
            if (merged != null) {
                out.set(out.size() - 1, merged);
            } else {
                out.add(event);
            }
        }
        return out;
    }

    private static StreamEvent withChunk(StreamEvent e, int chunk) {
        return switch (e) {
            case ThinkingStart t -> new ThinkingStart(chunk, t.name(), t.attributes());
            case ThinkingContent t -> new ThinkingContent(chunk, t.content());
            case ThinkingEnd t -> new ThinkingEnd(chunk, t.content());
            case MessageStart m -> new MessageStart(chunk);
            case MessageContent m -> new MessageContent(chunk, m.content());
            case MessageEnd m -> new MessageEnd(chunk, m.content());
            case ToolCallStart t -> new ToolCallStart(chunk, t.name(), t.attributes());
            case ToolCallName t -> new ToolCallName(chunk, t.toolName());
            case ToolCallArgument t -> new ToolCallArgument(chunk, t.name(), t.value());
            case ToolCallContent t -> new ToolCallContent(chunk, t.content());
            case ToolCallEnd t -> new ToolCallEnd(chunk, t.content(), t.call());
            case StreamEvent.Section t -> new StreamEvent.Section(chunk, t.name(), t.content());
            case Complete c -> new Complete(chunk, c.message(), c.thinking(), c.toolCalls());
        };
    }

    // ------------------------------------------------------------------ rendering

    static String renderLines(List<StreamEvent> events) {
        return events.stream().map(StreamTesting::render).collect(Collectors.joining("\n"));
    }

    static String render(StreamEvent event) {
        String prefix = event.chunk() == NO_CHUNK ? "" : event.chunk() + " ";
        String body = switch (event) {
            case ThinkingStart t -> t.type() + " " + t.name() + " " + attributes(t.attributes());
            case ThinkingContent t -> t.type() + " " + quote(t.content());
            case ThinkingEnd t -> t.type() + " " + quote(t.content());
            case MessageStart m -> m.type();
            case MessageContent m -> m.type() + " " + quote(m.content());
            case MessageEnd m -> m.type() + " " + quote(m.content());
            case ToolCallStart t -> t.type() + " " + t.name() + " " + attributes(t.attributes());
            case ToolCallName t -> t.type() + " " + t.toolName();
            case ToolCallArgument t -> t.type() + " " + t.name() + " " + t.value();
            case ToolCallContent t -> t.type() + " " + quote(t.content());
            case ToolCallEnd t -> t.type() + " " + call(t.call());
            case StreamEvent.Section t -> t.type() + " " + t.name() + " " + quote(t.content());
            case Complete c -> c.type() + " " + quote(c.message())
                    + " thinking=[" + c.thinking().stream().map(StreamTesting::thinking).collect(Collectors.joining(", "))
                    + "] tool_calls=[" + c.toolCalls().stream().map(StreamTesting::call).collect(Collectors.joining(", "))
                    + "]";
        };
        return prefix + body;
    }

    static String thinking(ThinkingBlock block) {
        return block.name() + " " + attributes(block.attributes()) + " " + quote(block.content());
    }

    static String call(DecodedToolCall call) {
        return switch (call) {
            case ToolCall c -> "{\"server_name\":\"" + c.serverName() + "\",\"tool_name\":\"" + c.toolName()
                    + "\",\"arguments\":" + c.arguments() + "}";
            case ToolCallError e -> "error";
        };
    }

    static String attributes(Map<String, String> attributes) {
        return attributes.entrySet().stream()
                .map(e -> e.getKey() + "=" + quote(e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }

    static String quote(String s) {
        return "\"" + s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t") + "\"";
    }

    // ------------------------------------------------------------------ well-formedness

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean trimmed(String s) {
        return s.isEmpty() || (!isWhitespace(s.charAt(0)) && !isWhitespace(s.charAt(s.length() - 1)));
    }

    /**
     * Checks what the contract promises for every stream, whatever the text:
     * <ul>
     *   <li>blocks are {@code *_start}, non-empty {@code *_content} deltas, {@code *_end}; they
     *       never overlap; a tool block has at most one {@code tool_call_name}, inside it;</li>
     *   <li>the deltas of a block concatenated equal its {@code *_end} content; thinking and
     *       tool content is trimmed; a message block is not empty and ends only before a
     *       thinking or tool block, or at the end of the stream;</li>
     *   <li>{@code complete} is the last event and only there, with chunk = number of chunks;
     *       {@code message} is all message deltas concatenated, without leading or trailing
     *       whitespace; {@code thinking} lists every thinking block (empty ones included) as
     *       its events say; {@code tool_calls} lists every tool block's decoded call;</li>
     *   <li>a tool call error has a non-blank error and the block's content;</li>
     *   <li>chunk indices never decrease and lie in [0, chunks];</li>
     *   <li>with {@code thinking-open}, the first event is {@code thinking_start think {}} at chunk 0.</li>
     * </ul>
     */
    static void assertWellFormed(List<StreamEvent> events, int chunkCount, StreamOptions options) {
        String all = renderLines(events);
        List<String> problems = new ArrayList<>();
        StringBuilder message = new StringBuilder();
        List<ThinkingBlock> thinking = new ArrayList<>();
        List<DecodedToolCall> calls = new ArrayList<>();

        String open = null; // "thinking", "message", "tool"
        StringBuilder content = new StringBuilder();
        ThinkingStart thinkingStart = null;
        boolean named = false;
        String lastEnded = null;
        int previousChunk = 0;

        for (int i = 0; i < events.size(); i++) {
            StreamEvent e = events.get(i);
            String at = "event " + i + " (" + render(e) + "): ";
            if (e.chunk() < previousChunk || e.chunk() > chunkCount) {
                problems.add(at + "chunk index out of order or range (previous " + previousChunk + ", chunks "
                        + chunkCount + ")");
            }
            previousChunk = e.chunk();
            if (e instanceof Complete c) {
                if (i != events.size() - 1) {
                    problems.add(at + "complete is not the last event");
                }
                if (open != null) {
                    problems.add(at + "complete while a " + open + " block is open");
                }
                if (c.chunk() != chunkCount) {
                    problems.add(at + "complete must carry the number of chunks, " + chunkCount);
                }
                if (!c.message().contentEquals(message)) {
                    problems.add(at + "complete.message is not all message deltas concatenated: " + quote(message.toString()));
                }
                if (!trimmed(c.message())) {
                    problems.add(at + "complete.message has leading or trailing whitespace");
                }
                if (!c.thinking().equals(thinking)) {
                    problems.add(at + "complete.thinking differs from the thinking blocks: " + thinking);
                }
                if (!c.toolCalls().equals(calls)) {
                    problems.add(at + "complete.tool_calls differs from the tool_call_end events: " + calls);
                }
                continue;
            }
            if (i == events.size() - 1) {
                problems.add(at + "the last event is not complete");
            }
            switch (e) {
                case ThinkingStart t -> {
                    checkStart(problems, at, open);
                    open = "thinking";
                    thinkingStart = t;
                    content.setLength(0);
                }
                case MessageStart m -> {
                    checkStart(problems, at, open);
                    if ("message".equals(lastEnded)) {
                        problems.add(at + "two message blocks with no other block between them");
                    }
                    open = "message";
                    content.setLength(0);
                }
                case ToolCallStart t -> {
                    checkStart(problems, at, open);
                    open = "tool";
                    named = false;
                    content.setLength(0);
                }
                case ThinkingContent t -> delta(problems, at, open, "thinking", t.content(), content, null);
                case MessageContent m -> delta(problems, at, open, "message", m.content(), content, message);
                case ToolCallContent t -> delta(problems, at, open, "tool", t.content(), content, null);
                case ToolCallArgument a -> {
                    if (!"tool".equals(open)) {
                        problems.add(at + "tool_call_argument outside a tool block");
                    }
                }
                case ToolCallName n -> {
                    if (!"tool".equals(open)) {
                        problems.add(at + "tool_call_name outside a tool block");
                    } else if (named) {
                        problems.add(at + "second tool_call_name in one tool block");
                    }
                    if (n.toolName().isEmpty()) {
                        problems.add(at + "empty tool name");
                    }
                    named = true;
                }
                case ThinkingEnd t -> {
                    end(problems, at, open, "thinking", t.content(), content);
                    if (!trimmed(t.content())) {
                        problems.add(at + "thinking content is not trimmed");
                    }
                    if (thinkingStart != null) {
                        thinking.add(new ThinkingBlock(thinkingStart.name(), t.content(), thinkingStart.attributes()));
                    }
                    open = null;
                    lastEnded = "thinking";
                }
                case MessageEnd m -> {
                    end(problems, at, open, "message", m.content(), content);
                    if (m.content().isEmpty()) {
                        problems.add(at + "empty message block");
                    }
                    open = null;
                    lastEnded = "message";
                }
                case ToolCallEnd t -> {
                    end(problems, at, open, "tool", t.content(), content);
                    if (!trimmed(t.content())) {
                        problems.add(at + "tool content is not trimmed");
                    }
                    switch (t.call()) {
                        case ToolCallError err -> {
                            if (err.error().isBlank()) {
                                problems.add(at + "tool call error without a reason");
                            }
                            if (!err.content().equals(t.content())) {
                                problems.add(at + "tool call error content " + quote(err.content())
                                        + " differs from the block content");
                            }
                        }
                        case ToolCall c -> {
                            if (c.serverName().isEmpty() || c.toolName().isEmpty()) {
                                problems.add(at + "empty server or tool name");
                            }
                        }
                    }
                    calls.add(t.call());
                    open = null;
                    lastEnded = "tool";
                }
                default -> throw new AssertionError(e);
            }
        }
        if (events.isEmpty() || !(events.getLast() instanceof Complete)) {
            problems.add("no complete event at the end");
        }
        if (options.thinkingOpen()) {
            if (events.isEmpty() || !(events.getFirst() instanceof ThinkingStart t)
                    || !t.name().equals("think") || !t.attributes().isEmpty() || t.chunk() != 0) {
                problems.add("thinking-open: the first event must be '0 thinking_start think {}'");
            }
        }
        assertThat(problems).as("well-formedness of:\n" + all + "\n").isEmpty();
    }

    private static void checkStart(List<String> problems, String at, String open) {
        if (open != null) {
            problems.add(at + "a block starts while a " + open + " block is open");
        }
    }

    private static void delta(List<String> problems, String at, String open, String kind, String text,
            StringBuilder content, StringBuilder message) {
        if (!kind.equals(open)) {
            problems.add(at + kind + " content outside a " + kind + " block (open: " + open + ")");
        }
        if (text.isEmpty()) {
            problems.add(at + "empty delta");
        }
        content.append(text);
        if (message != null) {
            message.append(text);
        }
    }

    private static void end(List<String> problems, String at, String open, String kind, String text,
            StringBuilder content) {
        if (!kind.equals(open)) {
            problems.add(at + kind + "_end without an open " + kind + " block (open: " + open + ")");
        }
        if (!Objects.equals(text, content.toString())) {
            problems.add(at + "end content differs from the deltas concatenated: " + quote(content.toString()));
        }
    }
}
