package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import dev.bellows.event.ThinkingBlock;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a dialect over a whole text and checks what holds for every dialect: the events are
 * well formed ({@link StreamTesting#run}); the text cut every way gives the same events as in one
 * chunk: in two pieces at every code point, one code point a chunk, and in chunks of 2, 3, 5, 7
 * and 11 code points; and {@code argument-events} only adds its own events, whatever the cuts.
 */
final class DialectTesting {

    private DialectTesting() {
    }

    static StreamOptions options(String dialect) {
        return StreamOptions.builder().dialect(Dialect.named(dialect)).build();
    }

    /**
     * The events of the text in one chunk, after checking that no other chunking changes them. The
     * cuts are run with {@code argument-events} on, each also checked against the run without it
     * (which then cannot depend on the cuts either: it is the same events without the option's own).
     */
    static List<StreamEvent> runAnyChunking(StreamOptions options, String text) {
        List<StreamChunk> one = List.of(StreamChunk.message(text));
        List<StreamEvent> on = StreamTesting.assertArgumentEventsOnlyAdd(options, one);
        String expected = StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(on));
        for (List<StreamChunk> chunks : everyWay(text)) {
            List<StreamEvent> events = StreamTesting.assertArgumentEventsOnlyAdd(options, chunks);
            assertThat(StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(events))).as("cut as %s", chunks)
                    .isEqualTo(expected);
        }
        return options.argumentEvents() ? on : StreamTesting.run(options, one);
    }

    /**
     * The text cut in two at every code point (at 150 positions spread over texts longer than that),
     * one code point a chunk, and in chunks of 2, 3, 5, 7 and 11.
     */
    static List<List<StreamChunk>> everyWay(String text) {
        List<List<StreamChunk>> ways = new ArrayList<>();
        int[] cps = text.codePoints().toArray();
        int step = Math.max(1, cps.length / 150); // every position of the examples; a sample of longer texts
        for (int at = 1; at < cps.length; at += step) {
            ways.add(List.of(StreamChunk.message(new String(cps, 0, at)), StreamChunk.message(new String(cps, at, cps.length - at))));
        }
        for (int size : new int[] {1, 2, 3, 5, 7, 11}) {
            ways.add(cut(text, size));
        }
        return ways;
    }

    static List<StreamChunk> cut(String text, int codePoints) {
        List<StreamChunk> out = new ArrayList<>();
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i < cps.length; i += codePoints) {
            out.add(StreamChunk.message(new String(cps, i, Math.min(codePoints, cps.length - i))));
        }
        return out;
    }

    /** The text cut where the seeds say (jqwik's cuts: each seed modulo the length gives one cut). */
    static List<StreamChunk> cut(String text, List<Integer> seeds) {
        return ChunkingInvarianceProperties.cut(
                List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, text)), seeds);
    }

    /** The index of the chunk that holds the text's UTF-16 char {@code at}. */
    static int chunkHolding(List<StreamChunk> chunks, int at) {
        int end = 0;
        for (int i = 0; i < chunks.size(); i++) {
            end += ((StreamChunk.Text) chunks.get(i)).text().length();
            if (at < end) {
                return i;
            }
        }
        throw new IllegalArgumentException("no chunk holds " + at);
    }

    /** The call as {@code name {arguments}}, or {@code error: reason}. */
    static String call(DecodedToolCall call) {
        return switch (call) {
            case ToolCall c -> c.toolName() + " " + c.arguments();
            case ToolCallError e -> "error: " + e.error();
        };
    }

    static List<String> calls(Complete complete) {
        return complete.toolCalls().stream().map(DialectTesting::call).toList();
    }

    static List<String> thinking(Complete complete) {
        return complete.thinking().stream().map(ThinkingBlock::content).toList();
    }

    /**
     * The chunk index of every {@code tool_call_name} when the text comes one UTF-16 char a
     * chunk: the index of the character that completed the name.
     */
    static List<String> namesByChar(StreamOptions options, String text) {
        List<StreamChunk> chunks = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            chunks.add(StreamChunk.message(String.valueOf(text.charAt(i))));
        }
        List<String> out = new ArrayList<>();
        for (StreamEvent e : StreamProcessor.parse(chunks, options)) {
            if (e instanceof StreamEvent.ToolCallName n) {
                out.add(n.toolName() + "@" + n.chunk());
            }
        }
        return out;
    }
}
