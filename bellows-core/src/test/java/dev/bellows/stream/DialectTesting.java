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
 * well formed ({@link StreamTesting#run}), and the text cut one code point a chunk, and in
 * chunks of 2, 3 and 7 code points, gives the same events as in one chunk.
 */
final class DialectTesting {

    private DialectTesting() {
    }

    static StreamOptions options(String dialect) {
        return StreamOptions.builder().dialect(Dialect.named(dialect)).build();
    }

    /** The events of the text in one chunk, after checking that no other chunking changes them. */
    static List<StreamEvent> runAnyChunking(StreamOptions options, String text) {
        List<StreamEvent> whole = StreamTesting.run(options, List.of(StreamChunk.message(text)));
        String expected = StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(whole));
        for (int size : new int[] {1, 2, 3, 7}) {
            List<StreamChunk> chunks = cut(text, size);
            String actual = StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(StreamTesting.run(options, chunks)));
            assertThat(actual).as("%d code points a chunk", size).isEqualTo(expected);
        }
        return whole;
    }

    static List<StreamChunk> cut(String text, int codePoints) {
        List<StreamChunk> out = new ArrayList<>();
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i < cps.length; i += codePoints) {
            out.add(StreamChunk.message(new String(cps, i, Math.min(codePoints, cps.length - i))));
        }
        return out;
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
