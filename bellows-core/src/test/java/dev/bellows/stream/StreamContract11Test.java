package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.assertEvents;
import static dev.bellows.stream.StreamTesting.chunks;
import static dev.bellows.stream.StreamTesting.complete;
import static dev.bellows.stream.StreamTesting.dq;
import static dev.bellows.stream.StreamTesting.expect;
import static dev.bellows.stream.StreamTesting.msg;
import static dev.bellows.stream.StreamTesting.onlyToolCall;
import static dev.bellows.stream.StreamTesting.onlyToolCallError;
import static dev.bellows.stream.StreamTesting.run;
import static dev.bellows.stream.StreamTesting.think;
import static dev.bellows.stream.StreamTesting.thinkingOpen;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The rules marked (1.1) in {@code stream-contract.md}: the redundant opening tag of the
 * thinking-open block, {@code tool-ends-thinking}, and tool blocks still open at the end of
 * the stream. Each test is one rule statement or example, with its exact events.
 */
class StreamContract11Test {

    private static StreamOptions toolEndsThinking() {
        return StreamOptions.builder().toolEndsThinking(true).build();
    }

    private static StreamOptions openAndToolEndsThinking() {
        return StreamOptions.builder().thinkingOpen(true).toolEndsThinking(true).build();
    }

    @Nested
    @DisplayName("thinking-open: the redundant opening tag")
    class RedundantOpenTag {

        @Test
        void theFirstThinkOpenTagIsConsumed() {
            expect(thinkingOpen(), chunks("<think>x</think>y"), """
                    0 thinking_start think {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content "y"
                    1 message_end "y"
                    1 complete "y" thinking=[think {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceMayComeBeforeItAndItsAttributesAreIgnored() {
            expect(thinkingOpen(), chunks(" \n<think effort=\"high\">\nx</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 complete "" thinking=[think {} "x"] tool_calls=[]
                    """.replace("0 complete", "1 complete"));
        }

        @Test
        void anyThinkingNameIsConsumedWhateverItsCase() {
            expect(thinkingOpen(), chunks("<THINKING>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "" thinking=[think {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void onlyOneTagIsConsumed() {
            expect(thinkingOpen(), chunks("<think><think>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "<think>x"
                    0 thinking_end "<think>x"
                    1 complete "" thinking=[think {} "<think>x"] tool_calls=[]
                    """);
        }

        @Test
        void afterNonWhitespaceContentItIsContent() {
            expect(thinkingOpen(), chunks("a <think>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "a <think>x"
                    0 thinking_end "a <think>x"
                    1 complete "" thinking=[think {} "a <think>x"] tool_calls=[]
                    """);
        }

        @Test
        void aSelfClosingTagIsNotConsumed() {
            expect(thinkingOpen(), chunks("<think/>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "<think/>x"
                    0 thinking_end "<think/>x"
                    1 complete "" thinking=[think {} "<think/>x"] tool_calls=[]
                    """);
        }

        @Test
        void aCandidateThatBreaksIsContentAndEndsTheChance() {
            expect(thinkingOpen(), chunks("<thinker><think>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "<thinker><think>x"
                    0 thinking_end "<thinker><think>x"
                    1 complete "" thinking=[think {} "<thinker><think>x"] tool_calls=[]
                    """);
        }

        @Test
        void theCandidateIsHeldBackAcrossChunks() {
            expect(thinkingOpen(), chunks("<th", "ink>", "x", "</think>"), """
                    0 thinking_start think {}
                    2 thinking_content "x"
                    3 thinking_end "x"
                    4 complete "" thinking=[think {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void aCandidatePendingAtTheEndOfTheStreamIsContent() {
            expect(thinkingOpen(), chunks("<think"), """
                    0 thinking_start think {}
                    1 thinking_content "<think"
                    1 thinking_end "<think"
                    1 complete "" thinking=[think {} "<think"] tool_calls=[]
                    """);
        }

        @Test
        void withoutThinkingOpenNothingIsConsumed() {
            expect(chunks("<think><think>x</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "<think>x"
                    0 thinking_end "<think>x"
                    1 complete "" thinking=[think {} "<think>x"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("tool-ends-thinking")
    class ToolEndsThinking {

        @Test
        void aToolOpenTagEndsTheThinkingBlockAndStartsTheCall() {
            expect(toolEndsThinking(), chunks(dq("<think>I should look.<tool_call>{'name': 'ls'}</tool_call>Done")), """
                    0 thinking_start think {}
                    0 thinking_content "I should look."
                    0 thinking_end "I should look."
                    0 tool_call_start tool_call {}
                    0 tool_call_name ls
                    0 tool_call_content "{"name": "ls"}"
                    0 tool_call_end {"server_name":"local","tool_name":"ls","arguments":{}}
                    0 message_start
                    0 message_content "Done"
                    1 message_end "Done"
                    1 complete "Done" thinking=[think {} "I should look."] tool_calls=[{"server_name":"local","tool_name":"ls","arguments":{}}]
                    """);
        }

        @Test
        void aLaterThinkingCloseTagIsPlainMessageText() {
            expect(toolEndsThinking(), chunks(dq("<think>r<tool>{'name': 'ls'}</tool></think> ok")), """
                    0 thinking_start think {}
                    0 thinking_content "r"
                    0 thinking_end "r"
                    0 tool_call_start tool {}
                    0 tool_call_name ls
                    0 tool_call_content "{"name": "ls"}"
                    0 tool_call_end {"server_name":"local","tool_name":"ls","arguments":{}}
                    0 message_start
                    0 message_content "</think> ok"
                    1 message_end "</think> ok"
                    1 complete "</think> ok" thinking=[think {} "r"] tool_calls=[{"server_name":"local","tool_name":"ls","arguments":{}}]
                    """);
        }

        @Test
        void itEndsTheThinkingOpenBlockToo() {
            expect(openAndToolEndsThinking(), chunks(dq("plan\n<tool_call>\n{'name': 'ls'}\n</tool_call>")), """
                    0 thinking_start think {}
                    0 thinking_content "plan"
                    0 thinking_end "plan"
                    0 tool_call_start tool_call {}
                    0 tool_call_name ls
                    0 tool_call_content "{"name": "ls"}"
                    0 tool_call_end {"server_name":"local","tool_name":"ls","arguments":{}}
                    1 complete "" thinking=[think {} "plan"] tool_calls=[{"server_name":"local","tool_name":"ls","arguments":{}}]
                    """);
        }

        @Test
        void theToolTagKeepsItsAttributesAndMayBeSelfClosing() {
            expect(toolEndsThinking(), chunks("<thinking>r<tool id=\"1\"/>"), """
                    0 thinking_start thinking {}
                    0 thinking_content "r"
                    0 thinking_end "r"
                    0 tool_call_start tool {id="1"}
                    0 tool_call_end error
                    1 complete "" thinking=[thinking {} "r"] tool_calls=[error]
                    """);
        }

        @Test
        void theCandidateIsHeldBackLikeACloseTagCandidate() {
            expect(toolEndsThinking(), chunks("<think>r<to", "ol>{\"name\": \"ls\"}</tool>"), """
                    0 thinking_start think {}
                    0 thinking_content "r"
                    1 thinking_end "r"
                    1 tool_call_start tool {}
                    1 tool_call_name ls
                    1 tool_call_content "{"name": "ls"}"
                    1 tool_call_end {"server_name":"local","tool_name":"ls","arguments":{}}
                    2 complete "" thinking=[think {} "r"] tool_calls=[{"server_name":"local","tool_name":"ls","arguments":{}}]
                    """);
        }

        @Test
        void otherTagsInsideThinkingStayContent() {
            expect(toolEndsThinking(), chunks("<think>a <toolbox> <b> x<10</think>"), """
                    0 thinking_start think {}
                    0 thinking_content "a <toolbox> <b> x<10"
                    0 thinking_end "a <toolbox> <b> x<10"
                    1 complete "" thinking=[think {} "a <toolbox> <b> x<10"] tool_calls=[]
                    """);
        }

        @Test
        void withoutTheOptionTheToolTagIsThinkingContent() {
            List<StreamEvent> events = run(StreamOptions.defaults(), chunks("<think>r<tool>{}</tool></think>"));
            assertThat(complete(events).thinking().getFirst().content()).isEqualTo("r<tool>{}</tool>");
            assertThat(complete(events).toolCalls()).isEmpty();
        }

        @Test
        void providerTypedThinkingIsNeverScanned() {
            expect(toolEndsThinking(), List.of(think(dq("r<tool>{'name': 'ls'}</tool>")), msg("ok")), """
                    0 thinking_start thinking {}
                    0 thinking_content "r<tool>{"name": "ls"}</tool>"
                    1 thinking_end "r<tool>{"name": "ls"}</tool>"
                    1 message_start
                    1 message_content "ok"
                    2 message_end "ok"
                    2 complete "ok" thinking=[thinking {} "r<tool>{"name": "ls"}</tool>"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceRulesApplyAsIfTheCloseTagStoodThere() {
            List<StreamEvent> events = run(toolEndsThinking(),
                    chunks(dq("A <think>r <tool>{'name': 'ls'}</tool> B")));
            assertThat(complete(events).message()).isEqualTo("A B");
        }

        @Test
        void theRedundantTagAndAToolTagTogether() {
            List<StreamEvent> events = run(openAndToolEndsThinking(),
                    chunks(dq("<think>r<tool>{'name': 'ls'}</tool>")));
            assertThat(complete(events).thinking().getFirst().content()).isEqualTo("r");
            assertThat(onlyToolCall(events).toolName()).isEqualTo("ls");
        }
    }

    @Nested
    @DisplayName("a tool block still open at the end of the stream")
    class UnclosedToolBlock {

        @Test
        void aCompleteJsonCallIsThatCall() {
            expect(chunks(dq("Run <tool>{'name': 'ls', 'arguments': {'a': 1}}")), """
                    0 message_start
                    0 message_content "Run"
                    0 message_end "Run"
                    0 tool_call_start tool {}
                    0 tool_call_name ls
                    0 tool_call_content "{"name": "ls", "arguments": {"a": 1}}"
                    1 tool_call_end {"server_name":"local","tool_name":"ls","arguments":{"a":1}}
                    1 complete "Run" thinking=[] tool_calls=[{"server_name":"local","tool_name":"ls","arguments":{"a":1}}]
                    """);
        }

        @Test
        void aCompleteXmlCallIsThatCall() {
            List<StreamEvent> events = run(chunks("<tool_call><tool_name>ls</tool_name><arguments><a>1</a></arguments>\n"));
            assertThat(onlyToolCall(events).toolName()).isEqualTo("ls");
            assertThat(onlyToolCall(events).arguments().toString()).isEqualTo("{\"a\":\"1\"}");
        }

        @Test
        void aDanglingPartialCloseTagIsContentSoTheCallIsAnError() {
            List<StreamEvent> events = run(chunks(dq("<tool>{'name': 'ls'}</tool")));
            assertThat(onlyToolCallError(events).content()).isEqualTo(dq("{'name': 'ls'}</tool"));
            assertThat(onlyToolCallError(events).error()).contains("never closed").contains("</tool>");
        }

        @Test
        void theErrorSaysTheBlockWasNeverClosedAndWhy() {
            List<StreamEvent> events = run(chunks(dq("<tool>{'name': 'ls', 'arguments': {")));
            String error = onlyToolCallError(events).error();
            assertThat(error).contains("never closed").contains("</tool>").contains("closing '}' or ']' is missing");
        }

        @Test
        void anEmptyUnclosedBlockIsAnError() {
            assertThat(onlyToolCallError(run(chunks("<tool>  "))).error()).contains("never closed").contains("empty");
        }
    }

    @Test
    void optionsCarryToolEndsThinking() {
        StreamOptions options = StreamOptions.builder().toolEndsThinking(true).build();
        assertThat(options.toolEndsThinking()).isTrue();
        assertThat(options.toBuilder().build().toolEndsThinking()).isTrue();
        assertThat(StreamOptions.defaults().toolEndsThinking()).isFalse();
        assertEvents(run(options, chunks("x")), """
                0 message_start
                0 message_content "x"
                1 message_end "x"
                1 complete "x" thinking=[] tool_calls=[]
                """);
    }
}
