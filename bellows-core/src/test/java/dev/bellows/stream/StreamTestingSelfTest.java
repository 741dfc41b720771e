package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.mergeAcrossChunks;
import static dev.bellows.stream.StreamTesting.mergeWithinChunk;
import static dev.bellows.stream.StreamTesting.renderLines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import dev.bellows.event.StreamEvent.MessageContent;
import dev.bellows.event.StreamEvent.MessageEnd;
import dev.bellows.event.StreamEvent.MessageStart;
import dev.bellows.event.StreamEvent.ThinkingContent;
import dev.bellows.event.StreamEvent.ThinkingEnd;
import dev.bellows.event.StreamEvent.ThinkingStart;
import dev.bellows.event.StreamEvent.ToolCallContent;
import dev.bellows.event.StreamEvent.ToolCallEnd;
import dev.bellows.event.StreamEvent.ToolCallName;
import dev.bellows.event.StreamEvent.ToolCallStart;
import dev.bellows.event.ThinkingBlock;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test DSL itself: normalisers, rendering and the well-formedness check, on hand-made events. */
class StreamTestingSelfTest {

    private static final ObjectNode ARGS = JsonNodeFactory.instance.objectNode().put("path", "a");
    private static final ToolCall CALL = new ToolCall("local", "read_file", ARGS);

    private static final List<StreamEvent> EVENTS = List.of(
            new MessageStart(0),
            new MessageContent(0, "Hi"),
            new MessageContent(0, " you"),
            new MessageContent(1, "!"),
            new MessageEnd(1, "Hi you!"),
            new ThinkingStart(1, "think", Map.of("a", "1")),
            new ThinkingContent(1, "x\n"),
            new ThinkingContent(1, "y"),
            new ThinkingEnd(2, "x\ny"),
            new ToolCallStart(2, "tool", Map.of()),
            new ToolCallContent(2, "{\"tool_name\": \"read"),
            new ToolCallContent(3, "_fi"),
            new ToolCallName(3, "read_file"),
            new ToolCallContent(3, "le\", \"arguments\": {\"path\": \"a\"}}"),
            new ToolCallEnd(3, "{\"tool_name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}", CALL),
            new ToolCallStart(3, "tool", Map.of()),
            new ToolCallContent(3, "nope"),
            new ToolCallEnd(4, "nope", new ToolCallError("nope", "not a tool call")),
            new Complete(4, "Hi you!", List.of(new ThinkingBlock("think", "x\ny", Map.of("a", "1"))),
                    List.of(CALL, new ToolCallError("nope", "not a tool call"))));

    @Test
    void mergesWithinChunksAndRenders() {
        assertThat(renderLines(mergeWithinChunk(EVENTS))).isEqualTo("""
                0 message_start
                0 message_content "Hi you"
                1 message_content "!"
                1 message_end "Hi you!"
                1 thinking_start think {a="1"}
                1 thinking_content "x\\ny"
                2 thinking_end "x\\ny"
                2 tool_call_start tool {}
                2 tool_call_content "{"tool_name": "read"
                3 tool_call_name read_file
                3 tool_call_content "_file", "arguments": {"path": "a"}}"
                3 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
                3 tool_call_start tool {}
                3 tool_call_content "nope"
                4 tool_call_end error
                4 complete "Hi you!" thinking=[think {a="1"} "x\\ny"] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}, error]""");
    }

    @Test
    void mergesAcrossChunksAndDropsIndices() {
        assertThat(renderLines(mergeAcrossChunks(EVENTS))).isEqualTo("""
                message_start
                message_content "Hi you!"
                message_end "Hi you!"
                thinking_start think {a="1"}
                thinking_content "x\\ny"
                thinking_end "x\\ny"
                tool_call_start tool {}
                tool_call_name read_file
                tool_call_content "{"tool_name": "read_file", "arguments": {"path": "a"}}"
                tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
                tool_call_start tool {}
                tool_call_content "nope"
                tool_call_end error
                complete "Hi you!" thinking=[think {a="1"} "x\\ny"] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}, error]""");
    }

    @Test
    void wellFormedEventsPass() {
        StreamTesting.assertWellFormed(EVENTS, 4, StreamOptions.defaults());
    }

    @Test
    void wellFormednessCatchesMistakes() {
        assertRejected(List.of(new MessageStart(0), new MessageContent(0, ""), new MessageEnd(1, ""),
                new Complete(1, "", List.of(), List.of())), "empty delta");
        assertRejected(List.of(new MessageStart(0), new MessageContent(0, "a"), new MessageEnd(1, "ab"),
                new Complete(1, "a", List.of(), List.of())), "differs from the deltas");
        assertRejected(List.of(new ThinkingStart(0, "thinking", Map.of()), new ThinkingEnd(0, ""),
                new Complete(1, "", List.of(), List.of())), "complete.thinking");
        assertRejected(List.of(new ToolCallStart(0, "tool", Map.of()), new ToolCallName(0, "a"),
                new ToolCallName(0, "a"), new ToolCallEnd(0, "", new ToolCallError("", "empty")),
                new Complete(1, "", List.of(), List.of(new ToolCallError("", "empty")))), "second tool_call_name");
        assertRejected(List.of(new ToolCallStart(0, "tool", Map.of()), new ToolCallEnd(0, "x", new ToolCallError("y", " ")),
                new Complete(1, "", List.of(), List.of(new ToolCallError("y", " ")))), "without a reason");
        assertRejected(List.of(new MessageStart(0), new MessageContent(0, "a"), new MessageEnd(0, "a"),
                new MessageStart(0), new MessageContent(0, "b"), new MessageEnd(1, "b"),
                new Complete(1, "ab", List.of(), List.of())), "two message blocks");
        assertRejected(List.of(new Complete(0, "", List.of(), List.of())), "complete must carry");
        assertRejected(List.of(new Complete(0, "", List.of(), List.of())), StreamTesting.thinkingOpen(), "thinking-open");
    }

    private static void assertRejected(List<StreamEvent> events, String problem) {
        assertRejected(events, StreamOptions.defaults(), problem);
    }

    private static void assertRejected(List<StreamEvent> events, StreamOptions options, String problem) {
        int chunks = events.getLast().chunk() == 0 && problem.equals("complete must carry") ? 3 : events.getLast().chunk();
        assertThatThrownBy(() -> StreamTesting.assertWellFormed(events, chunks, options))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(problem);
    }

    @Test
    void cutsOnlyBetweenCodePoints() {
        var stream = List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, "a😀b"),
                new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.THINKING, "é"));
        assertThat(ChunkingInvarianceProperties.cut(stream, List.of(0, 1, 2, 3, 4)))
                .containsExactly(StreamChunk.message("a"), StreamChunk.message("😀"), StreamChunk.message("b"),
                        StreamChunk.thinking("é"));
        assertThat(ChunkingInvarianceProperties.cut(stream, List.of()))
                .containsExactly(StreamChunk.message("a😀b"), StreamChunk.thinking("é"));
        var withEmpty = List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, ""),
                new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.THINKING, "ab"));
        assertThat(ChunkingInvarianceProperties.cut(withEmpty, List.of(0, 1, 2)))
                .containsExactly(StreamChunk.message(""), StreamChunk.thinking("a"), StreamChunk.thinking("b"));
    }
}
