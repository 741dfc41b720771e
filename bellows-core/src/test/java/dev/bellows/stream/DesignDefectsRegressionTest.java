package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.chunks;
import static dev.bellows.stream.StreamTesting.complete;
import static dev.bellows.stream.StreamTesting.dq;
import static dev.bellows.stream.StreamTesting.expect;
import static dev.bellows.stream.StreamTesting.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression tests for the known faults of the frameworks Bellows' design came from
 * ({@code design/README.md}), which Bellows must not copy. The quadratic re-scan of a growing
 * tool call is covered by the benchmarks, not here.
 */
class DesignDefectsRegressionTest {

    @Test
    @DisplayName("Forge: message text before <tool> in the same chunk is kept")
    void textBeforeToolInTheSameChunkIsKept() {
        expect(dq("Let me check. <tool>{'name': 'read_file', 'arguments': {'path': 'a'}}</tool>"), """
                0 message_start
                0 message_content "Let me check."
                0 message_end "Let me check."
                0 tool_call_start tool {}
                0 tool_call_name read_file
                0 tool_call_content "{"name": "read_file", "arguments": {"path": "a"}}"
                0 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
                1 complete "Let me check." thinking=[] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}]
                """);
    }

    @Test
    @DisplayName("Forge: text before <tool> is kept when the tag starts at the end of a chunk")
    void textBeforeToolIsKeptWhenTheTagIsSplit() {
        expect(chunks("I will read it<to", dq("ol>{'name'"), dq(": 'read_file'}</tool>")), """
                0 message_start
                0 message_content "I will read it"
                1 message_end "I will read it"
                1 tool_call_start tool {}
                1 tool_call_content "{"name""
                2 tool_call_name read_file
                2 tool_call_content ": "read_file"}"
                2 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{}}
                3 complete "I will read it" thinking=[] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{}}]
                """);
    }

    @Test
    @DisplayName("Forge: the thinking parser keeps text after a bare <")
    void thinkingKeepsTextAfterABareLessThan() {
        expect("<thinking>if a < b then c <d</thinking>", """
                0 thinking_start thinking {}
                0 thinking_content "if a < b then c <d"
                0 thinking_end "if a < b then c <d"
                1 complete "" thinking=[thinking {} "if a < b then c <d"] tool_calls=[]
                """);
    }

    @Test
    @DisplayName("Forge: the thinking parser keeps text after a bare < at a chunk boundary")
    void thinkingKeepsTextAfterABareLessThanAtAChunkBoundary() {
        expect(chunks("<thinking>a <", " b <", "c</thinking>"), """
                0 thinking_start thinking {}
                0 thinking_content "a"
                1 thinking_content " < b"
                2 thinking_content " <c"
                2 thinking_end "a < b <c"
                3 complete "" thinking=[thinking {} "a < b <c"] tool_calls=[]
                """);
    }

    @Test
    @DisplayName("Forge: message text after a bare < is kept")
    void messageKeepsTextAfterABareLessThan() {
        expect("a <", """
                0 message_start
                0 message_content "a"
                1 message_content " <"
                1 message_end "a <"
                1 complete "a <" thinking=[] tool_calls=[]
                """);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x < 5 and y > 3", "x<5 and y>3", "x <5 and y> 3"})
    @DisplayName("looopy: text between a stray < and the next > is not dropped")
    void strayLessThanKeepsEverythingUpToTheGreaterThan(String text) {
        expect(text, """
                0 message_start
                0 message_content "%1$s"
                1 message_end "%1$s"
                1 complete "%1$s" thinking=[] tool_calls=[]
                """.formatted(text));
        // One character a chunk gives the same text.
        List<String> oneByOne = text.chars().mapToObj(c -> String.valueOf((char) c)).toList();
        assertThat(complete(run(oneByOne.toArray(String[]::new))).message()).isEqualTo(text);
    }

    @Test
    @DisplayName("looopy: a stray < inside thinking and tool content is kept too")
    void strayLessThanInsideBlocks() {
        assertThat(complete(run("<thinking>x < 5 and y > 3</thinking>")).thinking().getFirst().content())
                .isEqualTo("x < 5 and y > 3");
        expect(dq("<tool>{'name': 'cmp', 'arguments': {'expr': 'x < 5 and y > 3'}}</tool>"), """
                0 tool_call_start tool {}
                0 tool_call_name cmp
                0 tool_call_content "{"name": "cmp", "arguments": {"expr": "x < 5 and y > 3"}}"
                0 tool_call_end {"server_name":"local","tool_name":"cmp","arguments":{"expr":"x < 5 and y > 3"}}
                1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"cmp","arguments":{"expr":"x < 5 and y > 3"}}]
                """);
    }

    @Test
    @DisplayName("looopy: a broken tag candidate does not stall the stream")
    void brokenCandidateDoesNotStall() {
        expect(chunks("Look: <thinkin", "g2 and more", " text"), """
                0 message_start
                0 message_content "Look:"
                1 message_content " <thinking2 and more"
                2 message_content " text"
                3 message_end "Look: <thinking2 and more text"
                3 complete "Look: <thinking2 and more text" thinking=[] tool_calls=[]
                """);
    }

    @Test
    @DisplayName("looopy: a < inside an attribute section releases the candidate at once")
    void lessThanInAttributeSectionDoesNotStall() {
        expect(chunks("x <tool a=1", " <b> more", " text"), """
                0 message_start
                0 message_content "x"
                1 message_content " <tool a=1 <b> more"
                2 message_content " text"
                3 message_end "x <tool a=1 <b> more text"
                3 complete "x <tool a=1 <b> more text" thinking=[] tool_calls=[]
                """);
    }

    @Test
    @DisplayName("looopy: an unfinished open tag is text after 256 characters, not a stall")
    void longUnfinishedCandidateDoesNotStall() {
        String first = "see <thinking " + "a".repeat(300);
        expect(chunks(first, " and", " more"), """
                0 message_start
                0 message_content "%1$s"
                1 message_content " and"
                2 message_content " more"
                3 message_end "%1$s and more"
                3 complete "%1$s and more" thinking=[] tool_calls=[]
                """.formatted(first));
    }

    @Test
    @DisplayName("looopy: an unclosed block streams its content as it arrives")
    void unclosedBlockStreamsItsContent() {
        expect(chunks("<thinking>ab", "cd", "ef"), """
                0 thinking_start thinking {}
                0 thinking_content "ab"
                1 thinking_content "cd"
                2 thinking_content "ef"
                3 thinking_end "abcdef"
                3 complete "" thinking=[thinking {} "abcdef"] tool_calls=[]
                """);
    }

    @Test
    @DisplayName("Forge, looopy: tags are matched case-insensitively")
    void tagsAreCaseInsensitive() {
        expect(dq("<THINKING>a</Thinking><tHiNk>b</THINK><TOOL>{'name': 't'}</tool><Tool_Call>{'name': 'u'}</tool_CALL>"), """
                0 thinking_start THINKING {}
                0 thinking_content "a"
                0 thinking_end "a"
                0 thinking_start tHiNk {}
                0 thinking_content "b"
                0 thinking_end "b"
                0 tool_call_start TOOL {}
                0 tool_call_name t
                0 tool_call_content "{"name": "t"}"
                0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                0 tool_call_start Tool_Call {}
                0 tool_call_name u
                0 tool_call_content "{"name": "u"}"
                0 tool_call_end {"server_name":"local","tool_name":"u","arguments":{}}
                1 complete "" thinking=[THINKING {} "a", tHiNk {} "b"] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}, {"server_name":"local","tool_name":"u","arguments":{}}]
                """);
    }
}
